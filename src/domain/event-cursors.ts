import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Where each reader of the events table stands (table `event_consumer_cursors`, migration
 * 0025). The cursor is opaque text: only the reader knows how to read events after it.
 */

/**
 * The consumer's cursor; the first time, `start` is stored and returned (so a new consumer
 * begins at the events of now, not at every event ever kept).
 *
 * ```sql
 * insert into event_consumer_cursors (consumer, cursor) values ($1, $start) on conflict do nothing;
 * select cursor from event_consumer_cursors where consumer = $1
 * ```
 */
export async function consumerCursor(db: Kysely<Database>, consumer: string, start: () => Promise<string>): Promise<string> {
  const row = await db.selectFrom('event_consumer_cursors').select('cursor').where('consumer', '=', consumer).executeTakeFirst();
  if (row) return row.cursor;
  await db.insertInto('event_consumer_cursors').values({ consumer, cursor: await start() }).onConflict((oc) => oc.column('consumer').doNothing()).execute();
  return (await db.selectFrom('event_consumer_cursors').select('cursor').where('consumer', '=', consumer).executeTakeFirstOrThrow()).cursor;
}

/**
 * Moves the consumer's cursor from `from` to `to`, in the caller's transaction (with what it
 * did for the events in between); false when another reader moved it first (then the
 * caller's transaction must roll back: those events were handled there).
 *
 * ```sql
 * update event_consumer_cursors set cursor = $to, updated_at = $now where consumer = $1 and cursor = $from
 * ```
 */
export async function advanceCursor(trx: Kysely<Database>, consumer: string, from: string, to: string, now: Date): Promise<boolean> {
  const result = await trx
    .updateTable('event_consumer_cursors')
    .set({ cursor: to, updated_at: now.toISOString() })
    .where('consumer', '=', consumer)
    .where('cursor', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
