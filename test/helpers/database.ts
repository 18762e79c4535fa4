import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DATABASE_URL } from './services.js';

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
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `tack_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
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
