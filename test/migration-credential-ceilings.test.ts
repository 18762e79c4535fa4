import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { TestDatabase } from './helpers/database.js';
import { databaseMigratedTo } from './helpers/migrated-database.js';

/**
 * Migration 0016 on a database that already holds tokens: one made for another member gets
 * its maker's role as ceiling (the role the maker has now: the one they had then is kept
 * nowhere); one's own, and one whose maker is gone, get none. Sessions and links made before
 * follow their member's role, as they did.
 */
let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  ({ database, handle } = await databaseMigratedTo('0015-snippet-type'));
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('0016-credential-ceilings', () => {
  it("gives tokens made for others their maker's role as ceiling, and nothing else one", async () => {
    const q = (text: string) => database.query(text);
    await q(`insert into organizations (id, slug, name) values ('org_m', 'm', 'M')`);
    await q(`insert into members (id, org_id, name, role) values ('mem_admin', 'org_m', 'A', 'admin'), ('mem_mia', 'org_m', 'Mia', 'owner')`);
    await q(`insert into tokens (id, org_id, member_id, created_by, name, token_hash, hint, scopes) values
      ('tok_by_admin', 'org_m', 'mem_mia', 'mem_admin', 'by admin', 'h1', 'x', '{read}'),
      ('tok_own', 'org_m', 'mem_mia', 'mem_mia', 'own', 'h2', 'x', '{read}'),
      ('tok_by_gone', 'org_m', 'mem_mia', 'mem_gone', 'by a removed member', 'h3', 'x', '{read}')`);
    await q(`insert into sessions (id, org_id, member_id, secret_hash) values ('ses_1', 'org_m', 'mem_mia', 's1')`);
    expect(await migrateToLatest(handle.db)).toContain('0016-credential-ceilings');
    const tokens = await database.query('select id, role_ceiling from tokens order by id');
    expect(tokens).toEqual([
      { id: 'tok_by_admin', role_ceiling: 'admin' },
      { id: 'tok_by_gone', role_ceiling: null },
      { id: 'tok_own', role_ceiling: null },
    ]);
    expect(await database.query('select token_id, scopes, role_ceiling from sessions')).toEqual([{ token_id: null, scopes: null, role_ceiling: null }]);
  });
});
