import { sql, type Kysely } from 'kysely';
import type { Database, SlackPostKind } from '../db/schema.js';

/**
 * Claims and records of the messages jobs post (table `slack_posts`, see migration 0005).
 * Each step is one statement, committed at once, so what a worker claimed or sent is known
 * to every other worker before it posts anything.
 */

/** How long a claim is a worker's alone; far longer than one post with its retries takes. */
export const LEASE_MS = 10 * 60_000;
/** After this many attempts a post is given up (state `failed`, kept with its last error). */
export const MAX_ATTEMPTS = 8;

export interface PostSubject {
  subjectId: string;
  period: string;
}

export interface Claim extends PostSubject {
  kind: SlackPostKind;
  attempts: number;
  /** An earlier attempt may have posted it: look in the channel before posting again. */
  unsure: boolean;
  leaseUntil: Date;
  /** When the first attempt claimed it: no attempt can have posted it earlier. */
  firstClaimedAt: Date;
}

/**
 * What must still hold for a post to be claimed: a reminder's todo is open and still due on
 * that date (a changed due date is a new reminder); a day's digest's (or a notification DM's) member still exists; a
 * summary's subscription still exists, is not paused, and has not had this period's summary; a
 * card thread's parent or reply (subject `<board subscription id>:<card id>`) has its board
 * subscription, not paused.
 */
function subjectStillWants(kind: SlackPostKind) {
  switch (kind) {
    case 'todo_reminder':
      return sql`join todos t on t.id = s.subject_id and t.due_on = s.period::date and not t.done`;
    case 'todo_digest':
    case 'notification_dm':
      return sql`join members t on t.id = s.subject_id`;
    case 'milestone_summary':
      return sql`join slack_subscriptions t on t.id = s.subject_id and t.last_sent_period is distinct from s.period and t.paused_at is null`;
    case 'card_parent':
    case 'card_event':
      return sql`join slack_board_subscriptions t on t.id = split_part(s.subject_id, ':', 1) and t.paused_at is null`;
  }
}

/**
 * Claims those of `subjects` that nobody has sent, given up or holds a live lease on; returns
 * the claims won. Two workers claiming the same post at once: the second waits for the
 * first's insert to commit, then finds the live lease and gets nothing.
 *
 * ```sql
 * insert into slack_posts as p (...) select ... from jsonb_to_recordset($1) s join todos t ...
 * on conflict (kind, subject_id, period) do update set attempts = p.attempts + 1,
 *   unsure = p.state = 'sending', state = 'sending', lease_until = excluded.lease_until
 * where p.state in ('sending','retry') and (p.lease_until is null or p.lease_until <= $now)
 * returning subject_id, period, attempts, unsure, created_at
 * ```
 */
export async function claimPosts(
  db: Kysely<Database>,
  kind: SlackPostKind,
  orgId: string,
  subjects: readonly PostSubject[],
  now: Date,
): Promise<Claim[]> {
  if (subjects.length === 0) return [];
  const at = now.toISOString();
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const items = JSON.stringify(subjects.map((s) => ({ subject_id: s.subjectId, period: s.period })));
  const { rows } = await sql<{ subject_id: string; period: string; attempts: number; unsure: boolean; created_at: string | Date }>`
    insert into slack_posts as p (kind, subject_id, period, org_id, state, attempts, unsure, lease_until, created_at, updated_at)
    select ${kind}, s.subject_id, s.period, ${orgId}, 'sending', 1, false, ${leaseUntil.toISOString()}::timestamptz, ${at}::timestamptz, ${at}::timestamptz
    from jsonb_to_recordset(${items}::jsonb) as s(subject_id text, period text)
    ${subjectStillWants(kind)}
    order by s.subject_id, s.period
    on conflict (kind, subject_id, period) do update set
      attempts = p.attempts + 1,
      unsure = p.state = 'sending',
      state = 'sending',
      lease_until = excluded.lease_until,
      updated_at = excluded.updated_at
    where p.state in ('sending', 'retry') and (p.lease_until is null or p.lease_until <= ${at}::timestamptz)
    returning p.subject_id, p.period, p.attempts, p.unsure, p.created_at`.execute(db);
  return rows.map((r) => ({
    kind,
    subjectId: r.subject_id,
    period: r.period,
    attempts: r.attempts,
    unsure: r.unsure,
    leaseUntil,
    firstClaimedAt: new Date(r.created_at),
  }));
}

function where(claim: Claim) {
  return { kind: claim.kind, subject_id: claim.subjectId, period: claim.period } as const;
}

export interface SentPost {
  claim: Claim;
  channelId: string;
  ts: string;
}

/**
 * Records posts as sent, many in one statement (one commit instead of one per message):
 * each claim becomes its record, and nobody sends it again.
 *
 * ```sql
 * update slack_posts p set state = 'sent', channel_id = s.channel_id, message_ts = s.ts, sent_at = $now, lease_until = null
 * from jsonb_to_recordset($1) s(kind text, subject_id text, period text, channel_id text, ts text)
 * where (p.kind, p.subject_id, p.period) = (s.kind, s.subject_id, s.period)
 * ```
 */
export async function markSent(db: Kysely<Database>, posts: readonly SentPost[], now: Date): Promise<void> {
  if (posts.length === 0) return;
  const at = now.toISOString();
  const items = JSON.stringify(posts.map((p) => ({ ...where(p.claim), channel_id: p.channelId, ts: p.ts })));
  await sql`
    update slack_posts as p set state = 'sent', channel_id = s.channel_id, message_ts = s.ts, sent_at = ${at}::timestamptz,
      lease_until = null, unsure = false, last_error = null, updated_at = ${at}::timestamptz
    from jsonb_to_recordset(${items}::jsonb) as s(kind text, subject_id text, period text, channel_id text, ts text)
    where p.kind = s.kind and p.subject_id = s.subject_id and p.period = s.period`.execute(db);
}

// Sweeps start a minute apart and fail a post some seconds into theirs: a retry due exactly a
// minute after the failure would miss the next sweep by those seconds and wait for the one
// after. Due this much earlier, the sweep a minute later takes it.
const SWEEP_LEEWAY_MS = 10_000;

/** Before attempt n + 1: 1, 2, 4, … up to 30 minutes (less the sweeps' leeway). */
function backoffMs(attempts: number): number {
  return Math.min(2 ** Math.max(0, attempts - 1), 30) * 60_000 - SWEEP_LEEWAY_MS;
}

/**
 * Releases a claim whose post did not go through. `mayBePosted` (Slack did not answer, or
 * an earlier attempt could not be checked) keeps it `sending`, so the next claim is unsure
 * and checks the channel first; otherwise `retry`. Either way after a backoff, and given up
 * (`failed`) after MAX_ATTEMPTS. `notAttempted` gives the attempt back (nothing was tried:
 * the token was refused, Slack asked to wait, the subscription was paused), so waiting for a
 * person to act never uses up a post's attempts.
 */
export async function markNotSent(
  db: Kysely<Database>,
  claim: Claim,
  outcome: { mayBePosted: boolean; error: string; now: Date; retryAt?: Date; notAttempted?: boolean },
): Promise<'failed' | 'later'> {
  const givenUp = !outcome.notAttempted && claim.attempts >= MAX_ATTEMPTS;
  const retryAt = outcome.retryAt ?? new Date(outcome.now.getTime() + backoffMs(claim.attempts));
  const key = where(claim);
  await db
    .updateTable('slack_posts')
    .set({
      ...(outcome.notAttempted ? { attempts: Math.max(0, claim.attempts - 1) } : {}),
      state: givenUp ? 'failed' : outcome.mayBePosted ? 'sending' : 'retry',
      lease_until: givenUp ? null : retryAt.toISOString(),
      last_error: outcome.error.slice(0, 500),
      updated_at: outcome.now.toISOString(),
    })
    .where('kind', '=', key.kind)
    .where('subject_id', '=', key.subject_id)
    .where('period', '=', key.period)
    .execute();
  return givenUp ? 'failed' : 'later';
}

/** Gives claims up at once (`failed`, with `error`): what they belonged to was given up. */
export async function markGivenUp(db: Kysely<Database>, claims: readonly Claim[], error: string, now: Date): Promise<void> {
  for (const claim of claims) {
    const key = where(claim);
    await db
      .updateTable('slack_posts')
      .set({ state: 'failed', lease_until: null, last_error: error.slice(0, 500), updated_at: now.toISOString() })
      .where('kind', '=', key.kind)
      .where('subject_id', '=', key.subject_id)
      .where('period', '=', key.period)
      .execute();
  }
}

/** Records older than this are history only (a reminder's date and a summary's week are long past). */
export const SLACK_POSTS_TTL_DAYS = 30;

export async function pruneSlackPosts(db: Kysely<Database>, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('slack_posts')
    .where('updated_at', '<', new Date(now.getTime() - SLACK_POSTS_TTL_DAYS * 86_400_000).toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * After a backup is restored (`tack restore-check`), Slack may hold messages this database
 * does not know it sent. Every pending claim (`sending` or `retry`) becomes `sending`, unsure
 * and claimable now, so its next claim reads the conversation before posting; and a fence
 * makes every claim first made in the next `windowHours` unsure too, reading history from
 * `historySince` (migration 0018: a row the backup never had is such a claim). Returns how
 * many pending claims were marked.
 *
 * ```sql
 * delete from slack_post_fences where until <= now();
 * insert into slack_post_fences (history_since, until) values ($since, now() + $hours * interval '1 hour');
 * update slack_posts set state = 'sending', unsure = true, lease_until = null, updated_at = now()
 * where state in ('sending', 'retry')
 * ```
 */
export async function fenceClaimsAfterRestore(db: Kysely<Database>, fence: { historySince: Date; windowHours: number }): Promise<number> {
  // Past fences only slow every claim's trigger down.
  await db.deleteFrom('slack_post_fences').where('until', '<=', sql<string>`now()`).execute();
  await sql`
    insert into slack_post_fences (history_since, until)
    values (${fence.historySince.toISOString()}::timestamptz, now() + ${fence.windowHours} * interval '1 hour')`.execute(db);
  const marked = await db
    .updateTable('slack_posts')
    .set({ state: 'sending', unsure: true, lease_until: null, updated_at: sql<string>`now()` })
    .where('state', 'in', ['sending', 'retry'])
    .executeTakeFirst();
  return Number(marked.numUpdatedRows);
}

/** Where a post stands: its state, where it was sent, its lease and last error. */
export interface PostRecord {
  state: string;
  channel_id: string | null;
  message_ts: string | null;
  lease_until: string | null;
  last_error: string | null;
}

/**
 * The record of one post, if it was ever claimed.
 *
 * ```sql
 * select state, channel_id, message_ts, lease_until, last_error from slack_posts where kind = $1 and subject_id = $2 and period = $3
 * ```
 */
export async function postRecord(db: Kysely<Database>, kind: SlackPostKind, subjectId: string, period: string): Promise<PostRecord | undefined> {
  return db
    .selectFrom('slack_posts')
    .select(['state', 'channel_id', 'message_ts', 'lease_until', 'last_error'])
    .where('kind', '=', kind)
    .where('subject_id', '=', subjectId)
    .where('period', '=', period)
    .executeTakeFirst();
}
