import type { types } from '@slack/bolt';
import { ErrorCode, type WebClient } from '@slack/web-api';
import { markNotSent, markSent, type Claim } from '../src/db/slack-posts.js';
import type { JobDeps } from './deps.js';

/**
 * Posting a message exactly once, when Slack has no idempotency key: claim (a leased row in
 * Postgres, committed), post with a metadata marker, record it sent. A worker that crashes
 * after claiming leaves a lease that expires, and the next run posts it (never skipped). A
 * worker that crashes after posting, before recording, leaves the row `sending`: the next
 * claim of it is `unsure`, looks for the marker in the channel's recent history first, and
 * records what it finds instead of posting again (never twice).
 */

/** The marker a message carries: Slack message metadata, returned by conversations.history. */
export interface Marker {
  event_type: string;
  event_payload: Record<string, string>;
}

export interface Outgoing {
  claim: Claim;
  /** The channel to post in (a DM is opened on demand). */
  channel: () => Promise<string>;
  message: { text: string; blocks?: types.KnownBlock[] };
  marker: Marker;
  /**
   * Records the post as sent; by default the claim's row at once. A job may collect them and
   * record many in one statement: until then the row stays `sending` under its lease, and a
   * crash in between is recovered from the channel's history like any other.
   */
  record?: (channelId: string, ts: string) => Promise<void>;
}

export type PostOutcome = 'sent' | 'recovered' | 'failed' | 'deferred';

// A claim this close to its lease's end is handed back rather than posted.
const LEASE_MARGIN_MS = 60_000;
// How far back an unsure claim looks for its marker: 5 pages of 200 messages.
const HISTORY_PAGES = 5;

function describe(err: unknown): string {
  const e = err as { code?: string; data?: { error?: string }; message?: string };
  return e.data?.error ? `${e.code}: ${e.data.error}` : (e.message ?? String(err));
}

/**
 * Slack answered and refused: `ok: false`, or still 429 after the client's retries (a
 * request error wrapping "A rate limit was exceeded"). The message was certainly not posted.
 */
function certainlyNotPosted(err: unknown): boolean {
  const e = err as { code?: string; original?: { message?: unknown } };
  if (e.code === ErrorCode.PlatformError || e.code === ErrorCode.RateLimitedError) return true;
  const original = e.original?.message;
  return e.code === ErrorCode.RequestError && typeof original === 'string' && original.startsWith('A rate limit was exceeded');
}

function carries(message: { metadata?: { event_type?: string; event_payload?: unknown } }, marker: Marker): boolean {
  const m = message.metadata;
  if (m?.event_type !== marker.event_type || !m.event_payload || typeof m.event_payload !== 'object') return false;
  const payload = m.event_payload as Record<string, unknown>;
  return Object.entries(marker.event_payload).every(([k, v]) => payload[k] === v);
}

/** The ts of a message in `channel` that carries `marker`, if one is among the recent ones. */
export async function findMarked(slack: WebClient, channel: string, marker: Marker): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const res = await slack.conversations.history({ channel, limit: 200, include_all_metadata: true, ...(cursor ? { cursor } : {}) });
    const found = (res.messages ?? []).find((m) => carries(m, marker));
    if (found?.ts) return found.ts;
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!res.has_more || !cursor) return undefined;
  }
  return undefined;
}

/** Posts one claimed message at most once (see above); never throws for Slack's failures. */
export async function postOnce(deps: JobDeps, slack: WebClient, out: Outgoing): Promise<PostOutcome> {
  const { claim } = out;
  const log = deps.log.child({ job_post: claim.kind, subject: claim.subjectId, period: claim.period, attempt: claim.attempts });
  const record = out.record ?? ((channelId, ts) => markSent(deps.db, [{ claim, channelId, ts }], deps.clock()));
  const now = deps.clock();
  if (now.getTime() > claim.leaseUntil.getTime() - LEASE_MARGIN_MS) {
    await markNotSent(deps.db, claim, { mayBePosted: claim.unsure, error: 'lease ran out before posting', now, retryAt: now });
    return 'deferred';
  }
  let channel: string;
  let checked = !claim.unsure;
  try {
    channel = await out.channel();
    if (claim.unsure) {
      const ts = await findMarked(slack, channel, out.marker);
      checked = true;
      if (ts) {
        await record(channel, ts);
        log.info({ channel, ts }, 'found the message of an interrupted attempt; recorded it instead of posting again');
        return 'recovered';
      }
    }
  } catch (err) {
    log.warn({ err: describe(err) }, 'Slack post not attempted');
    await markNotSent(deps.db, claim, { mayBePosted: !checked, error: describe(err), now: deps.clock() });
    return 'failed';
  }
  let posted: { channel?: string; ts?: string };
  try {
    posted = await slack.chat.postMessage({ channel, text: out.message.text, blocks: out.message.blocks, metadata: out.marker });
  } catch (err) {
    const mayBePosted = !certainlyNotPosted(err);
    log.warn({ err: describe(err), mayBePosted }, 'Slack post failed');
    await markNotSent(deps.db, claim, { mayBePosted, error: describe(err), now: deps.clock() });
    return 'failed';
  }
  try {
    await record(posted.channel ?? channel, posted.ts ?? '');
  } catch (err) {
    // Posted, not recorded: the row stays `sending`, and the next claim finds the marker.
    log.error({ err: describe(err) }, 'posted to Slack but could not record it');
  }
  return 'sent';
}
