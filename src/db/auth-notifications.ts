import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from './schema.js';

const CHANNEL = 'tack_auth_changed';
// LISTEN and UNLISTEN wait this long at most (a stalled server, a network black hole): the
// listener then retries on a new connection, and a shutdown goes on.
const ANSWER_MS = 5_000;

/** A statement with pg's own read timeout (which its typings leave out of QueryConfig). */
function bounded(text: string): pg.QueryConfig {
  return { text, query_timeout: ANSWER_MS } as pg.QueryConfig;
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
 * its cached principals. Returns a `stop` function.
 */
export function authNotifications(pool: pg.Pool, onChange: () => void, log: Logger): { stop: () => Promise<void> } {
  let client: pg.PoolClient | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  // Failed attempts to listen since the last success.
  let failures = 0;

  /** Gives the listening client back exactly once, detached from our handlers. */
  const drop = (c: pg.PoolClient, broken: boolean) => {
    if (client === c) client = undefined;
    c.removeAllListeners('notification');
    c.removeAllListeners('error');
    // A late error on a client we already gave back must not throw (pg-pool refuses a double release).
    c.on('error', () => {});
    c.release(broken);
  };

  const listen = async () => {
    if (stopped) return;
    let c: pg.PoolClient | undefined;
    try {
      c = await pool.connect();
      const mine = c;
      mine.on('notification', (msg) => {
        if (msg.channel === CHANNEL) onChange();
      });
      mine.on('error', () => {
        drop(mine, true);
        // Anything may have changed while we were deaf.
        onChange();
        schedule();
      });
      await mine.query(bounded(`LISTEN ${CHANNEL}`));
      if (stopped) {
        drop(mine, false);
        return;
      }
      client = mine;
      // Whatever changed before this LISTEN (while reconnecting) was not heard: forget it all.
      onChange();
      if (failures > 0) log.info({ failed_attempts: failures }, 'listening for auth changes again');
      failures = 0;
    } catch (err) {
      if (c && c.listenerCount('notification') > 0) drop(c, true);
      // Once per outage, not once a second: the attempts go on quietly (debug) until one succeeds.
      log[failures++ === 0 ? 'warn' : 'debug']({ err: (err as Error).message }, 'cannot listen for auth changes yet; retrying every second');
      schedule();
    }
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void listen();
    }, 1_000);
    retry.unref();
  };
  void listen();

  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (client) {
        const c = client;
        client = undefined;
        try {
          await c.query(bounded(`UNLISTEN ${CHANNEL}`));
          drop(c, false);
        } catch {
          // Closing anyway; a connection that did not answer is not given back for reuse.
          drop(c, true);
        }
      }
    },
  };
}
