import { Kysely, PostgresDialect, sql, type KyselyConfig } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { PGlitePool } from './pglite-pool.js';
import { PreparedStatementPool } from './prepared-pool.js';
import { runDirectlyLogged, type DirectRunner } from './direct-query.js';
import { boundTransactions, transactDirectly } from './bound-transaction.js';
import { lockDataDir } from './data-dir-lock.js';

export type Db = Kysely<Database>;

export interface DbHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** A raw pg Pool when on a server (for LISTEN/NOTIFY), undefined on PGlite. */
  pool: pg.Pool | undefined;
  ping(): Promise<void>;
  /**
   * Runs `fn` without the statement bounds, on a connection of its own that is closed after
   * (migrations: building an index may take minutes); on PGlite, on `db` itself.
   */
  unbounded<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * PGlite only (a server's pool LISTENs on a connection of its own, see pg-listener.ts):
   * calls `onNotify` for each NOTIFY on `channel`. Called before any other work, since PGlite
   * has one session, which a transaction under way would take the LISTEN into.
   */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

// Timestamps and dates stay text (cursors need Postgres's microseconds); int8 counts become numbers.
const TEXT_TYPES = [1082, 1114, 1184];
const INT8 = 20;

/**
 * How long tack waits for Postgres, in milliseconds. Unset in `ConnectOptions`: no statement
 * bound (migrations, one-off commands) and the connect timeout of `DEFAULT_CONNECT_MS`.
 */
export interface DbTimeouts {
  /**
   * Postgres's `statement_timeout` for every statement, 0 for none. Two bounds follow from it:
   * tack waits for any answer at most `ANSWER_GRACE_MS` longer (a stalled server, a network
   * black hole) and then drops the connection, and a transaction left idle by a vanished
   * client is ended by the server after twice this (`idle_in_transaction_session_timeout`).
   */
  statementMs: number;
  /** Connecting, and waiting for a free connection of the pool. */
  connectMs: number;
}

/**
 * How much longer than the statement timeout tack waits for an answer: the server ends an
 * overlong statement itself at the statement timeout and answers at once, so an answer later
 * than this means the server or the network stopped answering.
 */
export const ANSWER_GRACE_MS = 1_000;
const DEFAULT_CONNECT_MS = 5_000;
/**
 * TCP keepalive on every connection, probing after this much silence: a server that vanished
 * without closing the connection (a host gone, a network cut) is then found by the kernel even
 * on a connection no statement bound watches (the listener between heartbeats, a migration
 * without bounds). How long the kernel probes before giving up is its own setting
 * (`tcp_keepalive_intvl`, `tcp_keepalive_probes`).
 */
export const KEEPALIVE_DELAY_MS = 10_000;

export interface ConnectOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** Bounds on waiting for a Postgres server (PGlite, in process, has none). */
  timeouts?: DbTimeouts;
  /** Kysely's query log (tests record the statements an operation runs). */
  log?: KyselyConfig['log'];
  /**
   * Commit without waiting for the WAL flush (`synchronous_commit = off`): for records whose
   * loss in a database crash only matters together with later writes, which WAL order makes
   * durable first (the Slack delivery record before its command acts).
   */
  asyncCommit?: boolean;
}

export async function connect(options: ConnectOptions): Promise<DbHandle> {
  return options.databaseUrl ? connectPostgres(options.databaseUrl, options.poolSize ?? 10, options) : connectPglite(options.dataDir);
}

function connectPostgres(url: string, max: number, options: ConnectOptions): DbHandle {
  const { log, asyncCommit, timeouts } = options;
  const statementMs = timeouts?.statementMs ?? 0;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options: asyncCommit ? '-c TimeZone=UTC -c synchronous_commit=off' : '-c TimeZone=UTC',
    connectionTimeoutMillis: timeouts?.connectMs ?? DEFAULT_CONNECT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    // A statement is sent without waiting for the answer of the one before it, so a write
    // transaction's BEGIN and COMMIT go out with its first and last statements (`queryAll`, see
    // bound-transaction.ts). Statements awaited one by one behave as without it.
    pipeline: true,
    ...(statementMs > 0 ? { statement_timeout: statementMs, idle_in_transaction_session_timeout: 2 * statementMs } : {}),
    types: {
      getTypeParser(oid: number, format?: string) {
        if (TEXT_TYPES.includes(oid)) return (v: string) => v;
        if (oid === INT8) return (v: string) => Number(v);
        return pg.types.getTypeParser(oid, format as 'text');
      },
    } as pg.CustomTypesConfig,
  });
  // An idle client's error (a database restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const prepared = new PreparedStatementPool(pool, statementMs > 0 ? statementMs + ANSWER_GRACE_MS : 0);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: prepared }), ...(log ? { log } : {}) });
  const direct: DirectRunner = (query) => prepared.rows(query.sql, query.parameters);
  runDirectlyLogged(db, direct, log);
  transactDirectly(db, boundTransactions(prepared, log ? { log } : {}));
  return {
    db,
    kind: 'postgres',
    pool,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async unbounded(fn) {
      const own = connectPostgres(url, 1, { ...options, timeouts: timeouts && { statementMs: 0, connectMs: timeouts.connectMs } });
      try {
        return await fn(own.db);
      } finally {
        await own.close();
      }
    },
    async close() {
      await db.destroy();
    },
  };
}

async function connectPglite(dataDir: string): Promise<DbHandle> {
  const release = lockDataDir(dataDir);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const parsers: Record<number, (v: string) => unknown> = { [INT8]: (v: string) => Number(v) };
    for (const oid of TEXT_TYPES) parsers[oid] = (v: string) => v;
    const lite = new PGlite(`${dataDir}/pgdata`, { parsers });
    await lite.waitReady;
    await lite.exec(`SET TimeZone = 'UTC'`);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PGlitePool(lite) }) });
    return {
      db,
      kind: 'pglite',
      pool: undefined,
      async ping() {
        await sql`select 1`.execute(db);
      },
      unbounded: (fn) => fn(db),
      listen: (channel, onNotify) => lite.listen(channel, onNotify),
      async close() {
        try {
          await db.destroy();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
