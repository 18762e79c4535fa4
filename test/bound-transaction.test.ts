import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { transactionRunner, type TransactionRunner } from '../src/db/bound-transaction.js';
import { connect, type DbHandle } from '../src/db/connect.js';
import { QueryTemplate } from '../src/db/query-template.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

/**
 * Write transactions on one connection, without kysely's transaction machinery
 * (`boundTransactions`): on a pool of one connection, so a transaction left open, or a
 * statement sent on another connection, would show.
 */
let database: TestDatabase;
let handle: DbHandle;
let transact: TransactionRunner;
let statements: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await connect({ databaseUrl: database.url, dataDir: '', poolSize: 1, log: (event) => void statements.push(event.query.sql) });
  transact = transactionRunner(handle.db)!;
  await sql`create table notes (id int primary key, body text not null)`.execute(handle.db);
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

const bodies = async () => (await sql<{ body: string }>`select body from notes order by id`.execute(handle.db)).rows.map((r) => r.body);
const insertNote = new QueryTemplate('insertNote', (db, _shape: null, v: { id: number; body: string }) => sql`insert into notes (id, body) values (${v.id}, ${v.body})`);

it('commits what the work wrote, between begin and commit, templates included', async () => {
  expect(transact).toBeDefined();
  statements = [];
  await transact(async (trx) => {
    await sql`insert into notes (id, body) values (1, 'built')`.execute(trx);
    await insertNote.execute(trx, null, { id: 2, body: 'templated' });
  });
  expect(statements).toEqual(['begin', "insert into notes (id, body) values (1, 'built')", 'insert into notes (id, body) values ($1, $2)', 'commit']);
  expect(await bodies()).toEqual(['built', 'templated']);
});

it('rolls back everything when the work fails, and leaves the connection clean for the next', async () => {
  await expect(
    transact(async (trx) => {
      await insertNote.execute(trx, null, { id: 3, body: 'rolled back' });
      await sql`insert into notes (id, body) values (1, 'a duplicate')`.execute(trx);
    }),
  ).rejects.toThrow(/duplicate key/);
  expect(await bodies()).toEqual(['built', 'templated']);
  // The one connection is outside any transaction: a statement on it commits by itself.
  const state = await sql<{ open: boolean }>`select now() <> statement_timestamp() as open`.execute(handle.db);
  expect(state.rows[0]!.open).toBe(false);
  await transact((trx) => insertNote.execute(trx, null, { id: 3, body: 'after' }));
  expect(await bodies()).toEqual(['built', 'templated', 'after']);
});

it('is a transaction to whoever asks, and starts no other inside it', async () => {
  await transact(async (trx) => {
    expect(trx.isTransaction).toBe(true);
    expect(() => trx.transaction()).toThrow(/cannot start another/);
    expect(() => trx.connection()).toThrow(/another connection/);
  });
});

it('sees its own writes inside and none of them outside until the commit', async () => {
  let outside: string[] | undefined;
  let inside: string[] | undefined;
  const other = await connect({ databaseUrl: database.url, dataDir: '', poolSize: 1 });
  try {
    await transact(async (trx) => {
      await insertNote.execute(trx, null, { id: 4, body: 'pending' });
      inside = (await sql<{ body: string }>`select body from notes where id = 4`.execute(trx)).rows.map((r) => r.body);
      outside = (await sql<{ body: string }>`select body from notes where id = 4`.execute(other.db)).rows.map((r) => r.body);
    });
  } finally {
    await other.close();
  }
  expect(inside).toEqual(['pending']);
  expect(outside).toEqual([]);
  expect(await bodies()).toContain('pending');
});
