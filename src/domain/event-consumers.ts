import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { EventRow } from './events.js';
import { EVENT_BATCH, eventsAfter, feedCursor, startCursor } from './event-feed.js';

/**
 * Consumers of the events table (table `event_consumers`, migration 0024): each reads the
 * committed events after its stored cursor and makes something of them (personal
 * notifications, channel posts), storing what it made and its new cursor in one transaction.
 * The consumer's row is locked for that transaction, so however many processes run it, one
 * at a time consumes, and each event is consumed exactly once: a crash rolls both back.
 */
export interface EventConsumer {
  /** Its row in `event_consumers`. */
  name: string;
  /** Makes what it makes of `rows` (in `seq` order) inside the transaction `trx` that moves its cursor past them. */
  consume(trx: Kysely<Database>, rows: readonly EventRow[], now: Date): Promise<void>;
}

/**
 * The consumer's cursor, its row locked to the end of the transaction. A consumer seen for
 * the first time starts after the last event committed now (it is not told of the past).
 *
 * ```sql
 * insert into event_consumers (name, cursor) values ($1, $last) on conflict (name) do nothing;
 * select cursor from event_consumers where name = $1 for update
 * ```
 */
async function lockedCursor(trx: Kysely<Database>, name: string): Promise<string> {
  const row = await trx.selectFrom('event_consumers').select('cursor').where('name', '=', name).forUpdate().executeTakeFirst();
  if (row) return row.cursor;
  await trx
    .insertInto('event_consumers')
    .values({ name, cursor: await startCursor(trx) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return (await trx.selectFrom('event_consumers').select('cursor').where('name', '=', name).forUpdate().executeTakeFirstOrThrow()).cursor;
}

/**
 * One batch (at most `limit` events) for `consumer`, in the caller's transaction: returns how
 * many events it consumed (fewer than `limit`: it has caught up).
 */
export async function consumeBatch(trx: Kysely<Database>, consumer: EventConsumer, now: Date, limit = EVENT_BATCH): Promise<number> {
  const cursor = await lockedCursor(trx, consumer.name);
  const rows = await eventsAfter(trx, cursor, limit);
  if (rows.length === 0) return 0;
  await consumer.consume(trx, rows, now);
  await trx
    .updateTable('event_consumers')
    .set({ cursor: feedCursor(rows[rows.length - 1]!), updated_at: now.toISOString() })
    .where('name', '=', consumer.name)
    .execute();
  return rows.length;
}

/** Where a consumer stands (undefined before its first run). */
export async function consumerCursor(db: Kysely<Database>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('event_consumers').select('cursor').where('name', '=', name).executeTakeFirst();
  return row?.cursor;
}
