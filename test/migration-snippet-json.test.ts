import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { TestDatabase } from './helpers/database.js';
import { databaseMigratedTo } from './helpers/migrated-database.js';

/**
 * Migration 0012 on a database that already holds snippets: each gets its stored JSON at once,
 * the bytes `JSON.stringify` makes of the snippet as tack presents it (timestamps in UTC,
 * milliseconds cut from microseconds).
 */

let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  ({ database, handle } = await databaseMigratedTo('0011-slack-home'));
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('0012-snippet-json', () => {
  it('stores the JSON of snippets made before it', async () => {
    const odd = 'Quote " back \\ é 😀 \u2028 </script>\t\u0001';
    await database.query(`insert into organizations (id, slug, name) values ('org_m', 'm', 'M')`);
    await database.query(
      `insert into snippets (id, org_id, created_by, type, name, slug, category, tags, visibility, version, body, created_at, updated_at) values
        ('snp_a', 'org_m', 'mem_a', 'html', $1, 'a', null, '{}', 'team', 1, $1, '2026-01-02 03:04:05.678999+00', '2026-01-02 03:04:05.000001+02'),
        ('snp_b', 'org_m', 'mem_a', 'sql', 'B', 'b', $1, array['x', $1], 'private', 3, 'select 1', '2026-01-02T03:04:05Z', '2026-01-03T03:04:05Z')`,
      [odd],
    );
    expect(await migrateToLatest(handle.db)).toContain('0012-snippet-json');
    const rows = await database.query(`select id, json_head || ',"public_url":null,' || json_tail as json from snippets order by id`);
    const base = { org_id: 'org_m' };
    expect(rows.map((r) => r.json)).toEqual([
      JSON.stringify({
        id: 'snp_a', ...base, type: 'html', name: odd, slug: 'a', category: null, tags: [], visibility: 'team', version: 1,
        public_url: null, body: odd, created_at: '2026-01-02T03:04:05.678Z', updated_at: '2026-01-02T01:04:05.000Z',
      }),
      JSON.stringify({
        id: 'snp_b', ...base, type: 'sql', name: 'B', slug: 'b', category: odd, tags: ['x', odd], visibility: 'private', version: 3,
        public_url: null, body: 'select 1', created_at: '2026-01-02T03:04:05.000Z', updated_at: '2026-01-03T03:04:05.000Z',
      }),
    ]);
  });
});
