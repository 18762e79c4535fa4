import type pg from 'pg';
import { connectTo } from './database.js';
import { waitFor } from './wait.js';

/**
 * Holds `LOCK TABLE <table> IN EXCLUSIVE MODE` in its own transaction on `url`, so a write
 * to that table blocks (reads still pass) until `release()`. In `share` mode, row locks
 * (SELECT … FOR UPDATE) pass too and only INSERT, UPDATE and DELETE wait.
 */
export async function lockTable(url: string, table: string, mode: 'exclusive' | 'share' = 'exclusive'): Promise<{ release(): Promise<void> }> {
  const client: pg.Client = await connectTo(url);
  await client.query('begin');
  await client.query(`lock table ${table} in ${mode} mode`);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await client.query('rollback').catch(() => {});
      await client.end().catch(() => {});
    },
  };
}

/**
 * Waits until a backend of database `dbName` waits on a lock while running a statement that
 * matches `like` (SQL LIKE, case-insensitive); returns its pid. `query` runs on another database connection.
 */
export async function waitForBlockedQuery(
  query: (text: string, params?: unknown[]) => Promise<{ pid: number }[]>,
  dbName: string,
  like: string,
  timeoutMs = 30_000,
): Promise<number> {
  const row = await waitFor(
    `a query like ${like} waiting on a lock`,
    async () =>
      (
        await query(
          `select pid from pg_stat_activity where datname = $1 and wait_event_type = 'Lock' and query ilike $2`,
          [dbName, like],
        )
      )[0],
    { timeoutMs },
  );
  return row.pid;
}

/** Waits until the backend `pid` has gone (its transaction, if any, rolled back). */
export async function waitForBackendGone(
  query: (text: string, params?: unknown[]) => Promise<unknown[]>,
  pid: number,
  timeoutMs = 30_000,
): Promise<void> {
  await waitFor(`backend ${pid} to end`, async () => (await query('select 1 from pg_stat_activity where pid = $1', [pid])).length === 0, {
    timeoutMs,
  });
}
