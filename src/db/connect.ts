import { Kysely, PostgresDialect, sql, type KyselyConfig } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { PGlitePool } from './pglite-pool.js';
import { PreparedStatementPool } from './prepared-pool.js';
import { lockDataDir } from './data-dir-lock.js';

export type Db = Kysely<Database>;

export interface DbHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** A raw pg Pool when on a server (for LISTEN/NOTIFY), undefined on PGlite. */
  pool: pg.Pool | undefined;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// Timestamps and dates stay text (cursors need Postgres's microseconds); int8 counts become numbers.
const TEXT_TYPES = [1082, 1114, 1184];
const INT8 = 20;

export interface ConnectOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
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

function connectPostgres(url: string, max: number, { log, asyncCommit }: ConnectOptions): DbHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options: asyncCommit ? '-c TimeZone=UTC -c synchronous_commit=off' : '-c TimeZone=UTC',
    connectionTimeoutMillis: 5_000,
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PreparedStatementPool(pool) }), ...(log ? { log } : {}) });
  return {
    db,
    kind: 'postgres',
    pool,
    async ping() {
      await sql`select 1`.execute(db);
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
