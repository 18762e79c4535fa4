import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DATABASE_URL } from './services.js';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
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
  return {
    url: withDatabase(DATABASE_URL, name),
    name,
    async drop() {
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}
