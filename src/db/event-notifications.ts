import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The channel new events are announced on: its payload is the last event's `seq`. */
export const EVENTS_CHANNEL = 'tack_events';

/**
 * Every writer of events takes this lock (for the rest of its transaction) just before it
 * inserts them, so events commit, and become visible, in the order of their `seq`.
 */
const EVENTS_LOCK = 7_242_019;

/** Waits for the events lock; held until the transaction ends. */
export async function lockEvents(trx: Kysely<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${EVENTS_LOCK})`.execute(trx);
}

/**
 * Tells every tack process on the same Postgres that events up to `seq` were written: sent
 * inside the writing transaction, so Postgres delivers it only if, and when, it commits.
 */
export async function announceEvents(trx: Kysely<Database>, seq: string): Promise<void> {
  await sql`select pg_notify(${EVENTS_CHANNEL}, ${seq})`.execute(trx);
}
