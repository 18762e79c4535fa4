import type { types } from '@slack/bolt';
import { ErrorCode } from '@slack/web-api';

/**
 * What a failed Web API call means for tack, told apart by Slack's own error codes:
 *
 * - `token`: the bot token no longer works (revoked, wrong, the app lost a scope). Nothing
 *   will work until someone fixes it: stop, say so once, and lose nothing meanwhile.
 * - `rate_limited`: Slack refused for now; `retryAfterSec` says when to come back.
 * - `conversation`: Slack will not let the bot post in that conversation (deleted or
 *   archived, or the bot is not a member). Retrying changes nothing until a person acts.
 * - `content`: Slack will not take the message as built (its blocks are too long or invalid),
 *   and never will: the same message refused again. Nothing was posted.
 * - `refused`: Slack answered and did not act (any other `ok: false`); it may work later.
 * - `unknown`: no clear answer (a timeout, a network error, an HTTP 5xx, or Slack's own
 *   `fatal_error`/`internal_error`): the call may or may not have taken effect.
 */
export type SlackFailure =
  | { kind: 'token'; error: string; needed?: string }
  | { kind: 'rate_limited'; error: string; retryAfterSec: number }
  | { kind: 'conversation'; error: string }
  | { kind: 'content'; error: string }
  | { kind: 'refused'; error: string }
  | { kind: 'unknown'; error: string };

const TOKEN_ERRORS = new Set(['invalid_auth', 'token_revoked', 'token_expired', 'account_inactive', 'missing_scope', 'not_authed', 'not_allowed_token_type', 'team_access_not_granted']);
const CONVERSATION_ERRORS = new Set(['channel_not_found', 'not_in_channel', 'is_archived']);
// The message's blocks, refused as built: `msg_blocks_too_long` is Slack's undocumented cap on
// their text (about 12,000 characters; see views/blocks.ts).
const CONTENT_ERRORS = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_blocks_too_long']);
// Slack's answers for "something broke on our side": the message may have been posted anyway.
const UNKNOWN_OUTCOME_ERRORS = new Set(['fatal_error', 'internal_error', 'request_timeout', 'service_unavailable']);
// When Slack says `ratelimited` in the body without a Retry-After header.
const DEFAULT_RETRY_AFTER_SEC = 30;

interface WebApiErrorShape {
  code?: unknown;
  message?: unknown;
  retryAfter?: unknown;
  statusCode?: unknown;
  data?: { error?: unknown; needed?: unknown; response_metadata?: { retryAfter?: unknown } };
}

export function classifySlackError(err: unknown): SlackFailure {
  const e = (typeof err === 'object' && err !== null ? err : {}) as WebApiErrorShape;
  if (e.code === ErrorCode.RateLimitedError) {
    const after = typeof e.retryAfter === 'number' ? e.retryAfter : DEFAULT_RETRY_AFTER_SEC;
    return { kind: 'rate_limited', error: 'ratelimited', retryAfterSec: after };
  }
  if (e.code === ErrorCode.PlatformError) {
    const error = typeof e.data?.error === 'string' ? e.data.error : 'unknown_error';
    if (TOKEN_ERRORS.has(error)) return { kind: 'token', error, ...(typeof e.data?.needed === 'string' ? { needed: e.data.needed } : {}) };
    if (CONVERSATION_ERRORS.has(error)) return { kind: 'conversation', error };
    if (CONTENT_ERRORS.has(error)) return { kind: 'content', error };
    if (UNKNOWN_OUTCOME_ERRORS.has(error)) return { kind: 'unknown', error };
    if (error === 'ratelimited') {
      const after = e.data?.response_metadata?.retryAfter;
      return { kind: 'rate_limited', error, retryAfterSec: typeof after === 'number' ? after : DEFAULT_RETRY_AFTER_SEC };
    }
    return { kind: 'refused', error };
  }
  if (e.code === ErrorCode.HTTPError) return { kind: 'unknown', error: `http_${typeof e.statusCode === 'number' ? e.statusCode : 'error'}` };
  // A request error (timeout, connection reset, DNS) or anything else: no answer to go by.
  return { kind: 'unknown', error: typeof e.message === 'string' ? e.message.slice(0, 200) : String(err).slice(0, 200) };
}

/** One line for logs and `last_error`: the kind and Slack's code. */
export function describeSlackFailure(f: SlackFailure): string {
  return f.kind === 'token' && f.needed ? `${f.kind}: ${f.error} (needs ${f.needed})` : `${f.kind}: ${f.error}`;
}

/** A message as tack posts or updates it: its notification text and its blocks. */
export interface SlackMessage {
  text: string;
  blocks?: types.KnownBlock[];
}

/**
 * Sends a message; when Slack refuses its blocks as built (`content`: too long or invalid),
 * sends its text alone at once. Such a refusal is certain, so the first send did nothing and
 * this is still one message: the reader gets the text without buttons rather than nothing,
 * where retrying the same blocks later would be refused every time.
 */
export async function textAloneIfRefused<T>(message: SlackMessage, send: (message: SlackMessage) => Promise<T>, onRefused: (failure: SlackFailure) => void): Promise<T> {
  try {
    return await send(message);
  } catch (err) {
    const failure = classifySlackError(err);
    if (failure.kind !== 'content' || !message.blocks) throw err;
    onRefused(failure);
    return send({ text: message.text });
  }
}
