import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { DATABASE_URL } from './services.js';
import { waitFor } from './wait.js';

export interface TestDatabase {
  url: string;
  name: string;
  /** A query on this database, through one client kept open until `drop`. */
  // Rows of ad-hoc test SQL: the caller knows their shape (any by default, like pg itself).
  query<R extends pg.QueryResultRow = any>(text: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

/** A connected client on `url` (a test database); `end()` it when done. */
export async function connectTo(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database on the test server, for one test file (or one test). */
export function createTestDatabase(): Promise<TestDatabase> {
  return newDatabase();
}

/**
 * A fresh database with every migration applied, for a server that would otherwise migrate
 * an empty one at each start: a copy of a template migrated once per set of migrations
 * (`create database … template`, a file copy, instead of running every migration again).
 */
export async function createMigratedDatabase(): Promise<TestDatabase> {
  return newDatabase(await migratedTemplate());
}

// Any constant will do; every test process building the template takes it first.
const TEMPLATE_LOCK = 7_412_099;

/** The template's name says which migrations it holds: a changed or added migration makes another one. */
function templateName(): string {
  const hash = createHash('sha256').update(JSON.stringify(migrations)).digest('hex').slice(0, 16);
  return `tack_template_${hash}`;
}

let template: Promise<string> | undefined;

/**
 * The migrated template, built by the first test process that needs it (the others wait on
 * an advisory lock): migrated under a name of its own, then renamed, so a template under the
 * final name is always complete. Nothing stays connected to it: Postgres copies only a
 * database no one is connected to.
 */
function migratedTemplate(): Promise<string> {
  template ??= admin(async (c) => {
    const name = templateName();
    await c.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const found = await c.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `${name}_building`;
        await c.query(`drop database if exists ${building} with (force)`);
        await c.query(`create database ${building}`);
        const handle = await connect({ databaseUrl: withDatabase(DATABASE_URL, building), dataDir: '' });
        try {
          await handle.unbounded(migrateToLatest);
        } finally {
          await handle.close();
        }
        // The pool's connections may linger a moment after it ended; a rename waits for none.
        await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [building]);
        await waitFor('the template to have no connection', async () => (await c.query('select 1 from pg_stat_activity where datname = $1', [building])).rowCount === 0);
        await c.query(`alter database ${building} rename to ${name}`);
      }
      return name;
    } finally {
      await c.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return template;
}

async function newDatabase(from?: string): Promise<TestDatabase> {
  const name = `tack_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}${from ? ` template ${from}` : ''}`));
  const url = withDatabase(DATABASE_URL, name);
  let client: Promise<pg.Client> | undefined;
  return {
    url,
    name,
    async query(text, params) {
      client ??= connectTo(url);
      return (await (await client).query(text, params)).rows;
    },
    async drop() {
      const open = client;
      client = undefined;
      if (open) await (await open).end().catch(() => {});
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}
