import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { TestDatabase } from './helpers/database.js';
import { databaseMigratedTo } from './helpers/migrated-database.js';

/**
 * Migration 0007 on a database that already holds criteria: positions become 0, 1, 2… per
 * card in the order the criteria were made (oldest first), and stay unique per card.
 */

let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  ({ database, handle } = await databaseMigratedTo('0005-jobs'));
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('0007-editing', () => {
  it('numbers existing criteria from 0, oldest first, per card', async () => {
    const q = (text: string) => database.query(text);
    await q(`insert into organizations (id, slug, name) values ('org_m', 'm', 'M')`);
    await q(`insert into boards (id, org_id, name, slug, ref_prefix) values ('brd_m', 'org_m', 'B', 'b', 'B')`);
    await q(`insert into cards (id, org_id, board_id, number, title) values ('crd_1', 'org_m', 'brd_m', 1, 'one'), ('crd_2', 'org_m', 'brd_m', 2, 'two')`);
    // Positions as the old code wrote them (from 1); one criterion made later got a lower one.
    await q(`insert into criteria (id, org_id, card_id, position, title, created_at) values
      ('crit_a', 'org_m', 'crd_1', 1, 'a', '2026-01-01T10:00:00Z'),
      ('crit_b', 'org_m', 'crd_1', 2, 'b', '2026-01-01T10:00:00Z'),
      ('crit_c', 'org_m', 'crd_1', 3, 'c', '2026-01-01T09:00:00Z'),
      ('crit_x', 'org_m', 'crd_2', 5, 'x', '2026-01-02T10:00:00Z')`);
    expect(await migrateToLatest(handle.db)).toContain('0007-editing');
    const rows = await database.query(`select card_id, title, position from criteria order by card_id, position`);
    expect(rows.map((r) => [r.card_id, r.title, r.position])).toEqual([
      ['crd_1', 'c', 0],
      ['crd_1', 'a', 1],
      ['crd_1', 'b', 2],
      ['crd_2', 'x', 0],
    ]);
    await expect(q(`insert into criteria (id, org_id, card_id, position, title) values ('crit_d', 'org_m', 'crd_1', 2, 'd')`)).rejects.toThrow(/criteria_card_position/);
    // Unique at the end of each statement, not row by row: a card's criteria can be renumbered in one.
    await sql`update criteria set position = 2 - position where card_id = 'crd_1'`.execute(handle.db);
    const swapped = await database.query(`select title from criteria where card_id = 'crd_1' order by position`);
    expect(swapped.map((r) => r.title)).toEqual(['b', 'a', 'c']);
  });
});
