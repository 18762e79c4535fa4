import type { types } from '@slack/bolt';
import { markNotSent, markSent, type Claim } from '../src/domain/slack-posts.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import type { JobResult } from '../src/domain/jobs.js';
import { classifySlackError, describeSlackFailure, textAloneIfRefused, type SlackFailure } from '../src/slack/slack-errors.js';
import type { Marker, SlackSweep } from './sweep.js';

/**
 * Posting a message exactly once, when Slack has no idempotency key: claim (a leased row in
 * Postgres, committed), post with a metadata marker, record it sent. A worker that crashes
 * after claiming leaves a lease that expires, and the next run posts it (never skipped). A
 * worker that crashes after posting, before recording, leaves the row `sending`: the next
 * claim of it is `unsure`, looks for the marker in the conversation first (read since the
 * post's first claim, once per sweep), and records what it finds instead of posting again.
 *
 * The Web API client never retries (see `webClientOptions`): a post whose answer did not come
 * (a timeout, a 5xx, Slack's `fatal_error`) may have gone through, so it is left `sending`
 * for the next claim to check, never simply sent again. Retrying is the claim table's job.
 */

export type { Marker } from './sweep.js';
export { textAloneIfRefused } from '../src/slack/slack-errors.js';

export interface Outgoing {
  claim: Claim;
  /** The channel to post in (a DM is opened on demand). */
  channel: () => Promise<string>;
  message: { text: string; blocks?: types.KnownBlock[] };
  /** Posts it as a reply in this thread (the parent's ts). */
  threadTs?: string;
  marker: Marker;
  /**
   * Looks for the marker of an interrupted attempt; by default in the conversation's history
   * (`SlackSweep.findMarked`). A thread reply is not in the history: its poster reads the thread.
   */
  find?: (channel: string) => Promise<string | undefined>;
  /**
   * Records the post as sent; by default the claim's row at once. A job may collect them and
   * record many in one statement: until then the row stays `sending` under its lease, and a
   * crash in between is recovered from the channel's history like any other.
   */
  record?: (channelId: string, ts: string) => Promise<void>;
  /**
   * Slack will not let the bot post in the conversation (archived, deleted, bot not in it).
   * Given, the post is handed back without using an attempt and this is called (summaries
   * pause their subscription); otherwise it is a refusal like any other.
   */
  onConversationRefused?: (failure: SlackFailure) => Promise<void>;
}

/**
 * `held`: not tried, because the sweep stopped (refused token, rate limit); it stays due and
 * keeps its attempts. `paused`: the conversation refused the bot (see `onConversationRefused`).
 */
export type PostOutcome = 'sent' | 'recovered' | 'failed' | 'deferred' | 'held' | 'paused';

/** Counts an outcome: held and paused posts were not tried, so they count as skipped. */
export function tally(result: JobResult, outcome: PostOutcome): void {
  if (outcome === 'sent' || outcome === 'recovered') result.sent++;
  else if (outcome === 'failed') result.failed++;
  else if (outcome === 'held' || outcome === 'paused') result.skipped++;
}

// A claim this close to its lease's end is handed back rather than posted.
const LEASE_MARGIN_MS = 60_000;

/** Posts one claimed message at most once (see above); never throws for Slack's failures. */
export async function postOnce(sweep: SlackSweep, out: Outgoing): Promise<PostOutcome> {
  const { deps, slack } = sweep;
  const { claim } = out;
  const log = deps.log.child({ job_post: claim.kind, subject: claim.subjectId, period: claim.period, attempt: claim.attempts });
  const record = out.record ?? ((channelId, ts) => writeTransaction(deps, (trx) => markSent(trx, [{ claim, channelId, ts }], deps.clock())));
  const now = deps.clock();
  if (sweep.halted) return hold(sweep, claim, claim.unsure);
  if (now.getTime() > claim.leaseUntil.getTime() - LEASE_MARGIN_MS) {
    await writeTransaction(deps, (trx) => markNotSent(trx, claim, { mayBePosted: claim.unsure, error: 'lease ran out before posting', now, retryAt: now }));
    return 'deferred';
  }
  let channel: string;
  let checked = !claim.unsure;
  try {
    channel = await out.channel();
    if (claim.unsure) {
      const ts = out.find ? await out.find(channel) : await sweep.findMarked(channel, out.marker, claim.firstClaimedAt);
      checked = true;
      if (ts) {
        await record(channel, ts);
        log.info({ channel, ts }, 'found the message of an interrupted attempt; recorded it instead of posting again');
        return 'recovered';
      }
    }
  } catch (err) {
    // Nothing was posted now; an earlier attempt may have, if its check did not happen.
    return failed(sweep, out, err, { mayBePosted: !checked, stage: 'Slack post not attempted' });
  }
  if (sweep.halted) return hold(sweep, claim, false);
  let posted: { channel?: string; ts?: string };
  try {
    posted = await textAloneIfRefused(out.message, (message) =>
      slack.chat.postMessage({ channel, ...message, ...(out.threadTs ? { thread_ts: out.threadTs } : {}), metadata: out.marker }), (failure) =>
      log.warn({ err: describeSlackFailure(failure) }, "Slack refused the message's blocks; posting its text alone"),
    );
  } catch (err) {
    // Slack's clear refusals were certainly not posted; no answer, or a 5xx, may have been.
    return failed(sweep, out, err, { mayBePosted: classifySlackError(err).kind === 'unknown', stage: 'Slack post failed' });
  }
  try {
    await record(posted.channel ?? channel, posted.ts ?? '');
  } catch (err) {
    // Posted, not recorded: the row stays `sending`, and the next claim finds the marker.
    log.error({ err: (err as Error).message }, 'posted to Slack but could not record it');
  }
  return 'sent';
}

/** Hands a claim back untried: due again when the sweep's halt says, with its attempt returned. */
async function hold(sweep: SlackSweep, claim: Claim, mayBePosted: boolean): Promise<PostOutcome> {
  const halt = sweep.halted!;
  await writeTransaction(sweep.deps, (trx) =>
    markNotSent(trx, claim, {
      mayBePosted,
      error: describeSlackFailure(halt.failure),
      now: sweep.deps.clock(),
      retryAt: halt.retryAt,
      notAttempted: true,
    }),
  );
  return 'held';
}

async function failed(sweep: SlackSweep, out: Outgoing, err: unknown, how: { mayBePosted: boolean; stage: string }): Promise<PostOutcome> {
  const { deps } = sweep;
  const { claim } = out;
  const failure = classifySlackError(err);
  if (failure.kind === 'token' || failure.kind === 'rate_limited') {
    await sweep.halt(failure);
    return hold(sweep, claim, how.mayBePosted);
  }
  const error = describeSlackFailure(failure);
  const log = deps.log.child({ job_post: claim.kind, subject: claim.subjectId, period: claim.period, attempt: claim.attempts });
  const now = deps.clock();
  if (failure.kind === 'conversation' && out.onConversationRefused) {
    await writeTransaction(deps, (trx) => markNotSent(trx, claim, { mayBePosted: how.mayBePosted, error, now, retryAt: now, notAttempted: true }));
    await out.onConversationRefused(failure);
    return 'paused';
  }
  log.warn({ err: error, mayBePosted: how.mayBePosted }, how.stage);
  await writeTransaction(deps, (trx) => markNotSent(trx, claim, { mayBePosted: how.mayBePosted, error, now }));
  return 'failed';
}
