import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * The horizon of commit order (migration 0022): the oldest transaction id that a write still
 * running on this database holds, else the next id to be given. Every row whose `xid` is below
 * it was written by a transaction that has ended, so a statement sent after this one sees all
 * such rows that committed, and no row below it can commit later. One statement:
 *
 *   select coalesce((select min(x) from pg_snapshot_xip(s) x
 *                    where x::xid in (select backend_xid from pg_stat_activity where datname = current_database())),
 *                   pg_snapshot_xmax(s)) from pg_current_snapshot() s
 *
 * Only this database's transactions count (a cluster-wide `pg_snapshot_xmin` would hold
 * events back behind any long write of another database on the same server). The read that
 * uses it must be a later statement: its snapshot then includes every transaction that ended
 * before the horizon was read. Transactions of another role without `pg_read_all_stats` show
 * no `backend_xid`; tack writes events with its own role only.
 */
export async function eventHorizon(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ horizon: string }>`
    select coalesce(
      (select min(x) from pg_snapshot_xip(s) x
       where x::xid in (select backend_xid from pg_stat_activity where datname = current_database() and backend_xid is not null)),
      pg_snapshot_xmax(s))::text as horizon
    from pg_current_snapshot() s`.execute(db);
  return rows[0]!.horizon;
}
