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
 * order, once no older transaction is running (`claimDueDeliveries`), so an endpoint gets
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
    order by e.seq, w.id`;

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

/**
 * Claims up to `limit` due attempts, at most one per endpoint: the earliest open one by
 * `(xid, position)` (so an endpoint gets its events in commit order, which is the order of
 * first attempts, and one that is down holds the rest until it answers), taken only once
 * every transaction older than its own has ended (one still running could yet commit an
 * earlier delivery): below the `eventHorizon`, read in a statement before. Due means pending with `next_attempt_at` reached, or
 * sending with an expired lease (its worker died mid-delivery: the same attempt goes again).
 *
 * Each endpoint's head is found through the open-attempts index (`webhook_deliveries_open`,
 * one probe per endpoint), and the endpoint's row is locked (`SKIP LOCKED`) while its head is
 * claimed, so two workers never claim one endpoint's head at once; the lease keeps them from
 * sending it twice after. (The first version looked for rows with no earlier open one, which
 * Postgres answered with a hash anti-join comparing every open row of an endpoint with every
 * other: 136 ms a claim at 2,000 waiting, seconds at 10,000.)
 *
 *   update webhook_deliveries d set status = 'sending', lease_until = …
 *   where d.id in (select c.id from webhooks h
 *                  cross join lateral (<h's open attempt of least (xid, position)>) c
 *                  where h.enabled and <c is due> and c.xid < <horizon> order by c.xid, c.position limit $limit
 *                  for no key update of h skip locked)
 */
export async function claimDueDeliveries(db: Kysely<Database>, now: Date, limit: number): Promise<ClaimedDelivery[]> {
  if (db.isTransaction) {
    await asyncCommit(db);
    return claimIn(db, now, limit);
  }
  return db.transaction().execute(async (trx) => {
    await asyncCommit(trx);
    return claimIn(trx, now, limit);
  });
}

/**
 * Commits the rest of this transaction without waiting for its WAL to reach the disk. For the
 * delivery job's own bookkeeping only (a claim, an attempt's outcome): a crash can lose the
 * last few of those, which leaves an attempt `sending` until its lease ends and then sends it
 * again, as delivery at least once allows. Two flushes per delivery were its whole cost (the
 * bench measured 9 deliveries a second to one endpoint on a loaded machine).
 */
export async function asyncCommit(trx: Kysely<Database>): Promise<void> {
  await sql`set local synchronous_commit = off`.execute(trx);
}

async function claimIn(db: Kysely<Database>, now: Date, limit: number): Promise<ClaimedDelivery[]> {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + LEASE_MS).toISOString();
  const horizon = await eventHorizon(db);
  const { rows } = await sql<ClaimedDelivery>`
    update webhook_deliveries d
    set status = 'sending', lease_until = ${lease}::timestamptz, updated_at = ${at}::timestamptz
    from webhooks w
    where w.id = d.webhook_id
      -- Checked again on the row as it is now: another worker may have claimed it since this
      -- statement's snapshot (the endpoint's lock, taken after that worker committed, does not
      -- make Postgres read the attempt again).
      and d.next_attempt_at <= ${at}::timestamptz
      and (d.status = 'pending' or (d.status = 'sending' and d.lease_until <= ${at}::timestamptz))
      and d.id in (
        select c.id from webhooks h
        cross join lateral (
          select o.id, o.status, o.next_attempt_at, o.lease_until, o.position, o.xid from webhook_deliveries o
          where o.webhook_id = h.id and o.status in ('pending', 'sending')
          order by o.xid, o.position
          limit 1
        ) c
        where h.enabled
          and c.next_attempt_at <= ${at}::timestamptz
          and (c.status = 'pending' or c.lease_until <= ${at}::timestamptz)
          and c.xid < cast(${horizon} as xid8)
        order by c.xid, c.position
        limit ${limit}
        for no key update of h skip locked
      )
    returning d.id, d.webhook_id, d.event_id, d.event_seq::text as event_seq, d.attempt, d.position::text as position, d.xid::text as xid,
              d.lease_until::text as lease_until, w.url, w.secret`.execute(db);
  return rows;
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
