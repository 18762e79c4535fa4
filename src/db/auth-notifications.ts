import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import { LISTEN_TIMING, listenOn, type ListenTiming } from './pg-listener.js';
import type { Database } from './schema.js';

const CHANNEL = 'tack_auth_changed';

export type { ListenTiming };

/** What the listener keeps up to date: the cache of principals (`AuthCache`). */
export interface AuthChangeSink {
  /** Tokens, members or sessions changed in some process: forget every cached principal. */
  clear(): void;
  /** Whether changes are heard from now on; false also forgets every cached principal. */
  hearing(on: boolean): void;
}

/**
 * Tells every tack process on the same Postgres that tokens or members changed. Called with
 * the writing transaction's handle: Postgres delivers the notification when, and only if,
 * the change commits, so it needs no connection of its own after the commit (and cannot be
 * lost between the commit and a later NOTIFY).
 *
 * `select pg_notify('tack_auth_changed', '')`
 */
export async function announceAuthChange(trx: Kysely<Database>): Promise<void> {
  await sql`select pg_notify(${CHANNEL}, '')`.execute(trx);
}

/**
 * Listens for `announceAuthChange` of every tack process on the same Postgres, so each drops
 * its cached principals. The sink is told it is deaf from the start until LISTEN answers,
 * and again from a failure of the listening connection (an error, or a heartbeat left
 * unanswered: see `ListenTiming`) until LISTEN answers on a new one, tried every second.
 * Returns a `stop` function.
 */
export function authNotifications(pool: pg.Pool, sink: AuthChangeSink, log: Logger, timing: ListenTiming = LISTEN_TIMING): { stop: () => Promise<void> } {
  return listenOn(pool, CHANNEL, { notified: () => sink.clear(), hearing: (on) => sink.hearing(on) }, log, timing, {
    lost: 'lost the connection listening for auth changes; credentials are read on every request until listening again',
    waiting: 'cannot listen for auth changes yet; retrying every second',
    again: 'listening for auth changes again',
  });
}
