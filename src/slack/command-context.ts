import type { types } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Principal } from '../domain/context.js';
import type { SlackMember } from '../domain/slack-links.js';
import { execute, type Runtime } from '../operations/execute.js';
import { operationNamed } from '../operations/index.js';
import type { Operation } from '../operations/operation.js';
import { parseOperationInput } from '../operations/operation-input.js';

/** What a command or button answers with: posted to the interaction's `response_url`. */
export interface SlackReply {
  text: string;
  blocks?: types.KnownBlock[];
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
}

/** What a command handler gets besides its text. */
export interface CommandContext {
  /** The linked tack member who typed the command. */
  member: SlackMember;
  principal: Principal;
  /** The Slack channel the command was typed in. */
  channelId: string;
  now: Date;
  /** Local hour (REMINDER_HOUR) at which reminders and summaries go out. */
  reminderHour: number;
  log: Logger;
  /** Runs an operation as the caller (see `callOperation`). */
  call<T = unknown>(operation: string | Operation, input: Record<string, unknown>): Promise<T>;
  /** The caller's IANA time zone: the member's, else their Slack profile's, else UTC. */
  timeZone(): Promise<string>;
  /**
   * Posts `message` in the command's channel as the bot (chat.postMessage, never retried by
   * the client). Throws Slack's error: a channel the bot cannot post to fails here.
   */
  postAsBot(message: { text: string; blocks?: types.KnownBlock[] }): Promise<void>;
}

export type CommandHandler = (text: string, ctx: CommandContext) => Promise<SlackReply>;

/** The text could not be read as the command: answered with the command's usage, ephemeral. */
export class UsageError extends Error {
  constructor(
    readonly usage: string,
    readonly problem?: string,
  ) {
    super(problem ?? 'usage');
    this.name = 'UsageError';
  }
}

/**
 * Runs one operation for a Slack caller exactly as `/v1` would: the input is validated part
 * by part with the operation's own schemas (a failure is the same 422 `validation_failed`
 * AppError), then `execute` checks scope and role and runs it (a write in its own
 * transaction). Returns the parsed response body.
 */
export async function callOperation<T = unknown>(
  rt: Runtime,
  operation: string | Operation,
  principal: Principal,
  input: Record<string, unknown>,
): Promise<T> {
  const op = typeof operation === 'string' ? operationNamed(operation) : operation;
  const outcome = await execute(rt, op, principal, parseOperationInput(op, input));
  return (outcome.body === null ? undefined : JSON.parse(outcome.body)) as T;
}
