import { RawJson } from '../db/raw-json.js';
import type { Principal } from '../domain/context.js';
import { execute, type Runtime } from './execute.js';
import { operationNamed, type OperationName, type OperationNamed } from './index.js';
import { validateCallInput } from './input-validation.js';
import type { CallInput, OperationCore, OutputOf } from './operation.js';

/** An operation of the table by name, or an operation object (the Slack-only cores). */
export type OperationRef = OperationName | OperationCore;

/** The operation `K` names. */
type OperationOf<K extends OperationRef> = K extends OperationName ? OperationNamed<K> : K extends OperationCore ? K : never;

/** What `callOperation` answers for `K`: the operation's output schema's type. */
export type AnswerOf<K extends OperationRef> = OutputOf<OperationOf<K>>;

/** What `callOperation` takes for `K`: the operation's input schema's input type. */
export type ArgsOf<K extends OperationRef> = CallInput<OperationOf<K>>;

/**
 * An answer as a value: Postgres's JSON text (`RawJson`) parsed, here and nowhere else; any
 * other answer as `run` returned it, never serialized and parsed again.
 */
export function answerOf(result: unknown): unknown {
  return result instanceof RawJson ? JSON.parse(result.text) : result;
}

/**
 * Runs one operation in-process for a caller, with no transport in between: the typed input is
 * validated with the operation's own input schema (a failure is the same 422
 * `validation_failed` AppError, with the same field errors, that `/v1` gives), then `execute`
 * checks scope and role and runs it (a write in its own transaction, through the one write
 * path). Answers the operation's answer as a value, typed by its output schema (undefined when
 * it has none). The Slack face and the jobs call operations through this.
 */
export async function callOperation<K extends OperationRef>(rt: Runtime, operation: K, principal: Principal, input: ArgsOf<K>): Promise<AnswerOf<K>> {
  const op: OperationCore = typeof operation === 'string' ? operationNamed(operation) : (operation as OperationCore);
  const outcome = await execute(rt, op, principal, validateCallInput(op, input as Record<string, unknown>), undefined, answerOf);
  // The value is what the operation's run returned (or its JSON text parsed), which its output schema types.
  return outcome.body as AnswerOf<K>;
}
