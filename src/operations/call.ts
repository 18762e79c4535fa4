import type { Principal } from '../domain/context.js';
import { execute, type Runtime } from './execute.js';
import { operationNamed, type OperationName, type OperationOutput } from './index.js';
import type { Operation, OutputOf } from './operation.js';
import { parseOperationInput } from './operation-input.js';

/** An operation of the table by name, or an operation object (the Slack-only ones). */
export type OperationRef = OperationName | Operation;

/** What `callOperation` answers for `K`: the operation's output schema's type. */
export type AnswerOf<K extends OperationRef> = K extends OperationName ? OperationOutput<K> : K extends Operation ? OutputOf<K> : never;

/**
 * Runs one operation in-process for a caller exactly as `/v1` would: the input is validated
 * part by part with the operation's own schemas (a failure is the same 422
 * `validation_failed` AppError), then `execute` checks scope and role and runs it (a write
 * in its own transaction). Answers the response body `/v1` would send, typed by the
 * operation's output schema. The Slack face and the jobs call operations through this.
 */
export async function callOperation<K extends OperationRef>(rt: Runtime, operation: K, principal: Principal, input: Record<string, unknown>): Promise<AnswerOf<K>> {
  const op: Operation = typeof operation === 'string' ? operationNamed(operation as string) : (operation as Operation);
  const outcome = await execute(rt, op, principal, parseOperationInput(op, input));
  // The body is the JSON `/v1` sends, made from what the operation's run returned, which its
  // output schema types (see OperationSpec.run).
  return (outcome.body === null ? undefined : JSON.parse(outcome.body)) as AnswerOf<K>;
}
