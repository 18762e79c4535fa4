import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { QueryTemplate } from '../src/db/query-template.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

/**
 * A QueryTemplate compiles once per shape and binds each run's own values: a second run with
 * other values must answer for those values, not the first run's, and a builder that changes
 * a value instead of passing it through must fail, never bind the value unchanged.
 */
let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await connect({ databaseUrl: database.url, dataDir: '' });
  await migrateToLatest(handle.db);
  await database.query(`insert into organizations (id, slug, name) values ('org_a', 'a', 'A'), ('org_b', 'b', 'B')`);
  await database.query(
    `insert into boards (id, org_id, name, slug, ref_prefix) values
       ('brd_1', 'org_a', 'One', 'one', 'ONE'), ('brd_2', 'org_a', 'Two', 'two', 'TWO'), ('brd_3', 'org_b', 'One', 'one', 'BON')`,
  );
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('QueryTemplate', () => {
  const boards = new QueryTemplate('test boards', (db, by: 'id' | 'slug', v: { org: string; key: string }) =>
    db
      .selectFrom('boards')
      .select(['id', 'ref_prefix'])
      .where('org_id', '=', v.org)
      .where(by === 'id' ? 'id' : 'slug', '=', v.key)
      .where('name', '<>', 'constant kept as it is'),
  );

  it('binds every run its own values, per shape, with the constants the query holds', async () => {
    expect(await boards.execute(handle.db, 'slug', { org: 'org_a', key: 'one' })).toEqual([{ id: 'brd_1', ref_prefix: 'ONE' }]);
    expect(await boards.execute(handle.db, 'slug', { org: 'org_b', key: 'one' })).toEqual([{ id: 'brd_3', ref_prefix: 'BON' }]);
    expect(await boards.execute(handle.db, 'id', { org: 'org_a', key: 'brd_2' })).toEqual([{ id: 'brd_2', ref_prefix: 'TWO' }]);
    expect(await boards.execute(handle.db, 'id', { org: 'org_b', key: 'brd_2' })).toEqual([]);
    expect(await boards.executeTakeFirst(handle.db, 'slug', { org: 'org_a', key: 'two' })).toEqual({ id: 'brd_2', ref_prefix: 'TWO' });
  });

  it('runs inside a transaction on the transaction', async () => {
    const seen = await handle.db.transaction().execute(async (trx) => {
      await trx.insertInto('boards').values({ id: 'brd_4', org_id: 'org_a', name: 'Four', slug: 'four', ref_prefix: 'FOU' }).execute();
      return boards.executeTakeFirst(trx, 'slug', { org: 'org_a', key: 'four' });
    });
    expect(seen).toEqual({ id: 'brd_4', ref_prefix: 'FOU' });
  });

  it('refuses a builder that changes a value, or writes it into the SQL text', async () => {
    const lowered = new QueryTemplate('lowered', (db, _shape: 'one', v: { key: string }) =>
      db.selectFrom('boards').select('id').where('slug', '=', v.key.toLowerCase()),
    );
    await expect(lowered.execute(handle.db, 'one', { key: 'ONE' })).rejects.toThrow(/unchanged/);
    const literal = new QueryTemplate('literal', (db, _shape: 'one', v: { key: string }) =>
      db.selectFrom('boards').select('id').where('slug', '=', sql.lit(v.key)),
    );
    await expect(literal.execute(handle.db, 'one', { key: 'one' })).rejects.toThrow(/unchanged/);
  });
});
