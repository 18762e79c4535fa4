import type { types } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Principal } from '../domain/context.js';
import type { SlackMember } from '../domain/slack-links.js';
import type { AnswerOf, ArgsOf, OperationRef } from '../operations/call.js';

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
  /** Local hour (REMINDER_HOUR) at which milestone summaries go out. */
  reminderHour: number;
  log: Logger;
  /** Runs an operation as the caller (see `callOperation`); its answer typed by the operation's output schema. */
  call: Caller;
  /** The caller's IANA time zone: the member's, else their Slack profile's, else UTC. */
  timeZone(): Promise<string>;
  /**
   * Posts `message` in the command's channel as the bot (chat.postMessage, never retried by
   * the client). Throws Slack's error: a channel the bot cannot post to fails here.
   */
  postAsBot(message: { text: string; blocks?: types.KnownBlock[] }): Promise<void>;
  /** Where the command's answer goes. */
  responseUrl: string;
}

/**
 * A command's form: the modal its text asks for (`/todo add` alone), opened at once with the
 * command's trigger_id, which lives 3 seconds, before the command waits in the queue or asks
 * Slack who the user is. Undefined when the text asks for no form (the handler answers it).
 * `responseUrl` is where the form's submission answers.
 */
export type CommandForm = (text: string, responseUrl: string) => types.ModalView | undefined;

/** Runs an operation as one caller (see `callOperation`). */
export type Caller = <K extends OperationRef>(operation: K, input: ArgsOf<K>) => Promise<AnswerOf<K>>;

/** A command's answer; null when it answered otherwise (it opened a modal). */
export type CommandHandler = (text: string, ctx: CommandContext) => Promise<SlackReply | null>;

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
