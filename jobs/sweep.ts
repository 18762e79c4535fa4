import type { WebClient } from '@slack/web-api';
import { recordSlackLimit, slackLimitedUntil } from '../src/domain/slack-rate-limits.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import type { JobName } from '../src/domain/jobs.js';
import { describeSlackFailure, type SlackFailure } from '../src/slack/slack-errors.js';
import type { JobDeps } from './deps.js';

/** The marker a message carries: Slack message metadata, returned by conversations.history. */
export interface Marker {
  event_type: string;
  event_payload: Record<string, string>;
}

/** Who sweeps: a scheduled job, the poster of board subscriptions' card threads, or the personal notifications (notifier.ts). */
export type SweepName = JobName | 'channel-posts' | 'notifications';

/** Why a sweep stopped posting, and when what it handed back is due again. */
export interface Halt {
  failure: SlackFailure;
  retryAt: Date;
}

interface MarkedMessage {
  ts: string;
  metadata: { event_type?: string; event_payload?: unknown };
}

// A message posted by an attempt is newer than the post's first claim; Slack's clock and
// ours may disagree a little, so reading starts this much earlier.
const CLOCK_SKEW_MS = 5 * 60_000;
// At most this many pages of 200 messages per conversation and sweep.
const HISTORY_PAGES = 10;

function carries(message: MarkedMessage, marker: Marker): boolean {
  const m = message.metadata;
  if (m.event_type !== marker.event_type || !m.event_payload || typeof m.event_payload !== 'object') return false;
  const payload = m.event_payload as Record<string, unknown>;
  return Object.entries(marker.event_payload).every(([k, v]) => payload[k] === v);
}

/**
 * What one run of a job shares between its posts: whether Slack told it to stop (a refused
 * token, a rate limit), and the conversations it has read while recovering interrupted posts,
 * so each conversation is read once per sweep, and only since the earliest claim in question.
 */
export class SlackSweep {
  private stopped: Halt | undefined;
  private readonly read = new Map<string, { since: number; messages: Promise<MarkedMessage[]> }>();

  private constructor(
    readonly deps: JobDeps,
    readonly slack: WebClient,
    private readonly job: SweepName,
  ) {}

  /**
   * A sweep, halted from the start while Slack's last Retry-After for the workspace (any
   * worker's, any job's) has not passed: it claims and posts nothing until then.
   */
  static async start(deps: JobDeps, slack: WebClient, job: SweepName): Promise<SlackSweep> {
    const sweep = new SlackSweep(deps, slack, job);
    const now = deps.clock();
    const limit = await slackLimitedUntil(deps.db, now);
    if (limit) {
      const retryAfterSec = Math.ceil((limit.until.getTime() - now.getTime()) / 1000);
      sweep.stopped = { failure: { kind: 'rate_limited', error: 'ratelimited', retryAfterSec }, retryAt: limit.until };
      deps.log.child({ job }).info({ retry_at: limit.until.toISOString(), reason: limit.reason }, 'Slack asked the workspace to wait; this sweep sends nothing before then');
    }
    return sweep;
  }

  /** Set once Slack refused the token or asked to wait: nothing more is posted in this sweep. */
  get halted(): Halt | undefined {
    return this.stopped;
  }

  /**
   * Stops the sweep (the first reason wins) and says why, once. A rate limit is kept for the
   * whole workspace, so every other sweep waits it out too.
   */
  async halt(failure: SlackFailure): Promise<void> {
    if (this.stopped) return;
    const now = this.deps.clock();
    const retryAt = failure.kind === 'rate_limited' ? new Date(now.getTime() + failure.retryAfterSec * 1000) : now;
    this.stopped = { failure, retryAt };
    if (failure.kind === 'rate_limited') await writeTransaction(this.deps, (trx) => recordSlackLimit(trx, retryAt, `${this.job}: ${failure.error}`, now));
    const log = this.deps.log.child({ job: this.job, slack_error: failure.error });
    if (failure.kind === 'token') {
      log.error(
        failure.needed ? { needed_scope: failure.needed } : {},
        `Slack refused the bot token (${failure.error}): nothing is being sent. Nothing is lost either: ` +
          'every reminder and summary still due goes out once SLACK_BOT_TOKEN works again (fix it and restart).',
      );
    } else {
      log.warn({ retry_at: retryAt.toISOString() }, `Slack stopped this sweep (${describeSlackFailure(failure)}); what is left is sent after ${retryAt.toISOString()}`);
    }
  }

  /**
   * The ts of a message in `channel` that carries `marker`, posted after `claimedAt` (less
   * some clock skew). The conversation is read once per sweep from the earliest time asked
   * for; a later question about an older claim reads it again from there.
   */
  async findMarked(channel: string, marker: Marker, claimedAt: Date): Promise<string | undefined> {
    const since = claimedAt.getTime() - CLOCK_SKEW_MS;
    let entry = this.read.get(channel);
    if (!entry || entry.since > since) {
      entry = { since, messages: this.readSince(channel, since) };
      this.read.set(channel, entry);
    }
    return (await entry.messages).find((m) => carries(m, marker))?.ts;
  }

  private async readSince(channel: string, sinceMs: number): Promise<MarkedMessage[]> {
    const oldest = (sinceMs / 1000).toFixed(6);
    const marked: MarkedMessage[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < HISTORY_PAGES; page++) {
      const res = await this.slack.conversations.history({ channel, oldest, limit: 200, include_all_metadata: true, ...(cursor ? { cursor } : {}) });
      for (const m of res.messages ?? []) if (m.ts && m.metadata) marked.push({ ts: m.ts, metadata: m.metadata });
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!res.has_more || !cursor) break;
    }
    return marked;
  }
}
