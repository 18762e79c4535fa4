import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { eventHorizon } from './event-horizon.js';
import { toIso } from './time.js';

/**
 * The retry ladder (contract §10): after a failed attempt n, attempt n+1 is due this long
 * after it; after the last, the delivery is given up. Eight attempts in all.
 */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** An endpoint whose attempts have all failed this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 3_600_000;

/** How long a worker holds a claimed attempt; longer than the 10 s an attempt may take. */
export const LEASE_MS = 60_000;

/**
 * Queues one pending delivery per event and matching webhook, in the statement that records
 * the events (`writeEvents`: this is its CTE over the inserted rows, `written`), so they
 * commit, or vanish, together: every enabled webhook of the event's organization whose
 * `events` name its type (`*`, the type, or a prefix ending in `.`), except for events only
 * their owner may see (a personal todo's).
 *
 *   insert into webhook_deliveries (…)
 *   select …, nextval('webhook_delivery_positions'), 'pending', e.created_at
 *   from written e join webhooks w on w.org_id = e.org_id and w.enabled
 *   where e.audience <> 'owner' and <w.events match e.type>
 *   order by e.seq, w.id
 *
 * The delivery's `xid` is its transaction's, as its event's: claims go in `(xid, position)`
 * order, once no older transaction is running (`claimDueRuns`), so an endpoint gets
 * its events in commit order.
 */
export const queueDeliveriesOfWritten = sql`
    insert into webhook_deliveries (id, webhook_id, event_id, event_seq, attempt, position, status, next_attempt_at, created_at, updated_at)
    select 'whd_' || replace(gen_random_uuid()::text, '-', ''), w.id, 'evt_' || e.seq, e.seq, 1,
           nextval('webhook_delivery_positions'), 'pending', e.created_at, e.created_at, e.created_at
    from written e
    join webhooks w on w.org_id = e.org_id and w.enabled
    where e.audience <> 'owner'
      and exists (select 1 from unnest(w.events) p where p = '*' or p = e.type or (right(p, 1) = '.' and left(e.type, length(p)) = p))
    order by e.seq, w.id
    returning webhook_id`;

/** An attempt a worker has claimed: what to send, where, signed with what. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_seq: string;
  attempt: number;
  position: string;
  /** The first attempt's transaction: a retry keeps it, with the position. */
  xid: string;
  lease_until: string;
  url: string;
  secret: string;
}

/** How many attempts of one endpoint a lane claims, sends in order and records at once. */
export const RUN_SIZE = 50;

/**
 * Claims a run of due attempts for each of up to `endpoints` endpoints: the endpoint's open
 * attempts in `(xid, position)` order from the earliest (its head), as many as are due and
 * below the horizon before the first that is not, `runSize` at most. An endpoint gets its
 * events in commit order, which is the order of first attempts, and one that is down holds
 * the rest until it answers: the head is taken only once every transaction older than its own
 * has ended (one still running could yet commit an earlier delivery), below the
 * `eventHorizon`, read in a statement before. Due means pending with `next_attempt_at`
 * reached, or sending with an expired lease (its worker died mid-delivery: the same attempt
 * goes again). A run shares one lease (`lease_until`), which its lane extends while it sends.
 *
 * Each endpoint's head is found through the open-attempts index (`webhook_deliveries_open`,
 * one probe per endpoint), its run by the same index (`runSize` rows at most), and the
 * endpoint's row is locked (`SKIP LOCKED`) while its run is claimed, so two workers never
 * claim one endpoint's attempts at once; the lease keeps them from sending them twice after.
 * (The first version looked for rows with no earlier open one, which Postgres answered with a
 * hash anti-join comparing every open row of an endpoint with every other: 136 ms a claim at
 * 2,000 waiting, seconds at 10,000.)
 *
 * Outside a transaction, the claim is one statement after the horizon's, its commit
 * asynchronous (`set_config('synchronous_commit', 'off', true)` inside it: see `asyncCommit`).
 * Returned: one array per endpoint, in send order.
 */
export async function claimDueRuns(db: Kysely<Database>, now: Date, endpoints: number, runSize: number): Promise<ClaimedDelivery[][]> {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + LEASE_MS).toISOString();
  const horizon = await eventHorizon(db);
  const { rows } = await sql<ClaimedDelivery & { rn: string }>`
    with cfg as (${bookkeeping(db)}),
    heads as (
      select h.id from webhooks h
      cross join lateral (
        select o.status, o.next_attempt_at, o.lease_until, o.position, o.xid from webhook_deliveries o
        where o.webhook_id = h.id and o.status in ('pending', 'sending')
        order by o.xid, o.position
        limit 1
      ) c
      where h.enabled
        and c.next_attempt_at <= ${at}::timestamptz
        and (c.status = 'pending' or c.lease_until <= ${at}::timestamptz)
        and c.xid < cast(${horizon} as xid8)
      order by c.xid, c.position
      limit ${endpoints}
      for no key update of h skip locked
    ),
    run as (
      select r.id, r.rn from heads
      cross join lateral (
        select o.id, row_number() over w as rn,
               bool_and(o.next_attempt_at <= ${at}::timestamptz
                        and (o.status = 'pending' or o.lease_until <= ${at}::timestamptz)
                        and o.xid < cast(${horizon} as xid8)) over w as ok
        from (
          select o.id, o.status, o.next_attempt_at, o.lease_until, o.position, o.xid from webhook_deliveries o
          where o.webhook_id = heads.id and o.status in ('pending', 'sending')
          order by o.xid, o.position
          limit ${runSize}
        ) o
        window w as (order by o.xid, o.position)
      ) r
      where r.ok
    ),
    -- One array: the attempts are then found through their key (a join with the run's rows
    -- was planned as a hash join over every row of the table).
    claim as (select array_agg(id) as ids, array_agg(rn) as rns from run)
    update webhook_deliveries d
    set status = 'sending', lease_until = ${lease}::timestamptz, updated_at = ${at}::timestamptz
    from webhooks w, claim, cfg
    where w.id = d.webhook_id and d.id = any(claim.ids)
      -- Checked again on the row as it is now: another worker may have claimed it since this
      -- statement's snapshot (the endpoint's lock, taken after that worker committed, does not
      -- make Postgres read the attempt again).
      and d.next_attempt_at <= ${at}::timestamptz
      and (d.status = 'pending' or (d.status = 'sending' and d.lease_until <= ${at}::timestamptz))
    returning d.id, d.webhook_id, d.event_id, d.event_seq::text as event_seq, d.attempt, d.position::text as position, d.xid::text as xid,
              d.lease_until::text as lease_until, w.url, w.secret, claim.rns[array_position(claim.ids, d.id)]::text as rn`.execute(db);
  const byEndpoint = new Map<string, Array<ClaimedDelivery & { rn: string }>>();
  for (const row of rows) {
    const run = byEndpoint.get(row.webhook_id) ?? [];
    run.push(row);
    byEndpoint.set(row.webhook_id, run);
  }
  const runs: ClaimedDelivery[][] = [];
  const broken: string[] = [];
  for (const run of byEndpoint.values()) {
    run.sort((a, b) => Number(a.rn) - Number(b.rn));
    // Only a run that starts at the head and leaves no gap is kept. Rows of the run that were
    // claimed (or recorded) by another worker since this statement's snapshot were skipped by
    // the check above; what is left after them must not go before them: it is given back.
    if (run.every((row, i) => Number(row.rn) === i + 1)) runs.push(run.map(({ rn: _rn, ...claim }) => claim));
    else broken.push(...run.map((row) => row.id));
  }
  if (broken.length > 0) await releaseClaimed(db, broken, lease, at);
  return runs;
}

/**
 * The first statement of the delivery bookkeeping's own statements (a claim, a run's
 * outcomes), as a CTE they join: outside a transaction, the statement is its own transaction,
 * and commits asynchronously (see `asyncCommit`); inside one, the caller decides.
 */
function bookkeeping(db: Kysely<Database>) {
  return db.isTransaction ? sql`select null::text as v` : sql`select set_config('synchronous_commit', 'off', true) as v`;
}

/**
 * Claimed attempts not sent, still under `lease`: given back (`extendTo` null: pending again,
 * due when they were, the lease cleared) or kept under a new lease. A statement or a CTE.
 */
function unsentRest(ids: readonly string[], lease: string, at: string, extendTo: string | null) {
  const release = extendTo === null;
  return sql`
    update webhook_deliveries d
    set status = case when ${release} then 'pending' else d.status end,
        lease_until = case when ${release} then null else ${extendTo}::timestamptz end,
        updated_at = ${at}::timestamptz
    from cfg
    where d.id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)) and d.status = 'sending' and d.lease_until = ${lease}::timestamptz
    returning d.id`;
}

/** Gives claimed attempts back unsent (a run broken by another worker's claim). */
async function releaseClaimed(db: Kysely<Database>, ids: string[], lease: string, at: string): Promise<void> {
  await sql`with cfg as (${bookkeeping(db)}) ${unsentRest(ids, lease, at, null)}`.execute(db);
}

/**
 * Commits the rest of this transaction without waiting for its WAL to reach the disk. For the
 * delivery job's own bookkeeping only (a claim, an attempt's outcome): a crash can lose the
 * last few of those, which leaves an attempt `sending` until its lease ends and then sends it
 * again, as delivery at least once allows. Two flushes per delivery were its whole cost (the
 * bench measured 9 deliveries a second to one endpoint on a loaded machine). Statements of
 * their own transaction do the same with `set_config` in the statement (`bookkeeping`).
 */
export async function asyncCommit(trx: Kysely<Database>): Promise<void> {
  await sql`set local synchronous_commit = off`.execute(trx);
}

/** A sent attempt of a run, succeeded, to record. */
export interface SentAttempt {
  id: string;
  responseStatus: number | null;
  durationMs: number;
  /** When it ended: the row's `updated_at`. */
  at: string;
}

/** What recording part of a run did. */
export interface RecordedRun {
  /** Successes recorded (fewer than given when the lease was lost: another worker took the run over). */
  succeeded: number;
  /** Unsent attempts given back or kept with the new lease (fewer than given when the lease was lost). */
  rest: number;
}

/**
 * Records the successes of part of a run (one endpoint's attempts, one lease) and what becomes
 * of its attempts not yet sent, in one statement: the successes (each with its own status,
 * duration and time) end the endpoint's failure streak; the rest is either given back (`release`:
 * pending again, due when they were, the lease cleared, for a lane that stops or met a failure)
 * or kept under a new lease (`extend`: the run goes on). Only the lease's holder records.
 */
export async function recordRun(
  db: Kysely<Database>,
  run: { webhookId: string; lease: string; succeeded: SentAttempt[]; rest: string[]; restTo: { release: true } | { extend: string } },
  now: Date,
): Promise<RecordedRun> {
  if (run.succeeded.length === 0 && run.rest.length === 0) return { succeeded: 0, rest: 0 };
  const at = now.toISOString();
  const done = JSON.stringify(run.succeeded.map((s) => ({ id: s.id, response_status: s.responseStatus, duration_ms: s.durationMs, at: s.at })));
  const extendTo = 'extend' in run.restTo ? run.restTo.extend : null;
  const { rows } = await sql<{ succeeded: number; rest: number }>`
    with cfg as (${bookkeeping(db)}),
    done as (
      update webhook_deliveries d
      set status = 'succeeded', response_status = v.response_status, duration_ms = v.duration_ms, error = null,
          next_attempt_at = null, lease_until = null, updated_at = v.at
      from jsonb_to_recordset(${done}::jsonb) as v(id text, response_status integer, duration_ms integer, at timestamptz), cfg
      where d.id = v.id and d.status = 'sending' and d.lease_until = ${run.lease}::timestamptz
      returning d.id
    ),
    healed as (
      update webhooks set failing_since = null
      where id = ${run.webhookId} and failing_since is not null and exists (select 1 from done)
    ),
    rest as (${unsentRest(run.rest, run.lease, at, extendTo)})
    select (select count(*) from done)::int as succeeded, (select count(*) from rest)::int as rest`.execute(db);
  return rows[0] ?? { succeeded: 0, rest: 0 };
}

/**
 * When the next attempt falls due: the earliest of the endpoints' heads (their open attempt
 * of least position: what a claim would take), by `next_attempt_at`, or by `lease_until` for
 * one being sent; undefined when nothing is open. Attempts behind a head wait for it, so
 * they are not counted (they are often due already).
 */
export async function nextDueAt(db: Kysely<Database>): Promise<Date | undefined> {
  const { rows } = await sql<{ due: string | null }>`
    select min(c.due)::text as due from webhooks h
    cross join lateral (
      select case when o.status = 'pending' then o.next_attempt_at else o.lease_until end as due from webhook_deliveries o
      where o.webhook_id = h.id and o.status in ('pending', 'sending')
      order by o.xid, o.position
      limit 1
    ) c
    where h.enabled`.execute(db);
  const due = rows[0]?.due;
  return due ? new Date(toIso(due)) : undefined;
}

/** How one attempt ended. */
export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/** What recording an attempt did to its endpoint. */
export interface Recorded {
  /** False when the lease was lost (another worker took the attempt over): nothing was recorded. */
  recorded: boolean;
  /** The endpoint has now failed every attempt for 3 days and was disabled (the caller records `webhook.disabled`). */
  disabled: boolean;
}

/**
 * Records an attempt's outcome, in one transaction with what follows from it: on success the
 * endpoint's failure streak ends; on failure the next attempt is queued at its time on the
 * ladder (or the delivery is given up after the last), and an endpoint that has failed every
 * attempt since 3 days or more is disabled (a streak starts when its first failed attempt
 * `started`). Only the lease's holder records.
 */
export async function recordAttempt(trx: Kysely<Database>, claim: ClaimedDelivery, outcome: AttemptOutcome, started: Date, now: Date): Promise<Recorded> {
  const at = now.toISOString();
  const delay = RETRY_DELAYS_MS[claim.attempt - 1];
  const next = !outcome.ok && delay !== undefined ? new Date(now.getTime() + delay).toISOString() : null;
  const updated = await trx
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.ok ? 'succeeded' : 'failed',
      response_status: outcome.responseStatus,
      duration_ms: outcome.durationMs,
      error: outcome.error,
      next_attempt_at: next,
      lease_until: null,
      updated_at: at,
    })
    .where('id', '=', claim.id)
    .where('status', '=', 'sending')
    .where(sql<boolean>`lease_until = ${claim.lease_until}::timestamptz`)
    .executeTakeFirst();
  if (updated.numUpdatedRows === 0n) return { recorded: false, disabled: false };
  if (outcome.ok) {
    await trx.updateTable('webhooks').set({ failing_since: null }).where('id', '=', claim.webhook_id).where('failing_since', 'is not', null).execute();
    return { recorded: true, disabled: false };
  }
  if (next !== null) {
    await trx
      .insertInto('webhook_deliveries')
      .values({
        id: `whd_${crypto.randomUUID().replaceAll('-', '')}`,
        webhook_id: claim.webhook_id,
        event_id: claim.event_id,
        event_seq: claim.event_seq,
        attempt: claim.attempt + 1,
        position: claim.position,
        xid: claim.xid,
        status: 'pending',
        next_attempt_at: next,
        created_at: laterThanAll(claim.webhook_id, at),
        updated_at: at,
      })
      .execute();
  }
  const hook = await trx
    .updateTable('webhooks')
    .set({ failing_since: sql<string>`coalesce(failing_since, ${started.toISOString()}::timestamptz)` })
    .where('id', '=', claim.webhook_id)
    .returning(['enabled', sql<string>`failing_since::text`.as('failing_since')])
    .executeTakeFirst();
  if (!hook?.enabled || hook.failing_since === null) return { recorded: true, disabled: false };
  if (now.getTime() - Date.parse(toIso(hook.failing_since)) < DISABLE_AFTER_MS) return { recorded: true, disabled: false };
  await trx.updateTable('webhooks').set({ enabled: false, disabled_at: at, updated_at: at }).where('id', '=', claim.webhook_id).execute();
  return { recorded: true, disabled: true };
}

/**
 * `at`, or just after the newest delivery row of the webhook when that is not earlier: a
 * webhook's attempts list newest first by `created_at`, and a retry or redelivery made at the
 * same instant as the attempt before it (a clock that stands still) still lists above it.
 */
export function laterThanAll(webhookId: string, at: string) {
  return sql<string>`greatest(${at}::timestamptz, (select max(created_at) + interval '1 microsecond' from webhook_deliveries where webhook_id = ${webhookId}))`;
}
