import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { TestDatabase } from './helpers/database.js';
import { databaseMigratedTo } from './helpers/migrated-database.js';

/**
 * Migration 0013 on a database that already holds cards: each gets the stored parts of its
 * JSON at once, the bytes `JSON.stringify` makes of those fields as tack presents them
 * (timestamps in UTC, milliseconds cut from microseconds).
 */

let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  ({ database, handle } = await databaseMigratedTo('0012-snippet-json'));
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('0013-card-json', () => {
  it('stores the JSON parts of cards made before it', async () => {
    const odd = 'Quote " back \\ é 😀 \u2028 </script>\t\u0001';
    await database.query(`insert into organizations (id, slug, name) values ('org_m', 'm', 'M')`);
    await database.query(`insert into boards (id, org_id, name, slug, ref_prefix) values ('brd_m', 'org_m', 'M', 'm', 'MM')`);
    await database.query(
      `insert into cards (id, org_id, board_id, number, title, workflow_status, created_at, updated_at) values
        ('crd_a', 'org_m', 'brd_m', 1, $1, 'in_review', '2026-01-02 03:04:05.678999+00', '2026-01-02 03:04:05.000001+02'),
        ('crd_b', 'org_m', 'brd_m', 2, 'B', 'backlog', '2026-01-02T03:04:05Z', '2026-01-03T03:04:05Z')`,
      [odd],
    );
    expect(await migrateToLatest(handle.db)).toContain('0013-card-json');
    const rows = await database.query(`select '{"x":0' || json_body || json_tail as json from cards order by id`);
    expect(rows.map((r) => r.json)).toEqual([
      JSON.stringify({ x: 0, board_id: 'brd_m', title: odd, workflow_status: 'in_review', created_at: '2026-01-02T03:04:05.678Z', updated_at: '2026-01-02T01:04:05.000Z' }),
      JSON.stringify({ x: 0, board_id: 'brd_m', title: 'B', workflow_status: 'backlog', created_at: '2026-01-02T03:04:05.000Z', updated_at: '2026-01-03T03:04:05.000Z' }),
    ]);
  });
});
