import { TOKEN_PREFIX } from './domain/token-format.js';

/** What a log record says of a failure: the error's kind, its code when it has one, and its message. */
export interface BriefError {
  type: string;
  code?: string;
  message: string;
}

// Slack tokens (bot, user, app-level, config) and tack's own API tokens, wherever a message quotes one.
const SECRETS = new RegExp(`\\b(?:xox[a-z]|xapp|xoxe\\.xox[a-z])-[A-Za-z0-9-]+|\\b${TOKEN_PREFIX}[A-Za-z0-9]+`, 'g');
// A message is one line of a log record, not a dump.
const MAX_MESSAGE = 500;

/**
 * An error as one short log record, for every face (HTTP, Slack): never its stack, nor what
 * the error object drags along (a Postgres error's detail and query position, a Slack Web
 * API error's response headers and body, a wrapped cause), and no token its message quotes.
 * pino's own `err` serializer would write all of those. Log it under a key other than `err`
 * (`error`, `db_error`): that serializer takes anything with a message for an Error, and
 * would add `type: "Object"` and an empty stack.
 */
export function briefError(err: unknown): BriefError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { name?: unknown; code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  // The class, as pino names it: Bolt's errors keep the name "Error", node-postgres's say "error".
  const cls = err instanceof Error ? err.constructor.name : '';
  return {
    type: cls && cls !== 'Error' ? cls : typeof e.name === 'string' ? e.name : 'Error',
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    message: message.replace(SECRETS, '[redacted]').slice(0, MAX_MESSAGE),
  };
}
