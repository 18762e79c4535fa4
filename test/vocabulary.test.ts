import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCardCommand } from '../commands/card.js';
import { parseTodoCommand } from '../commands/todo.js';
import { connect, type DbHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import {
  CADENCES,
  MILESTONE_KINDS,
  PRIORITIES,
  ROLES,
  SNIPPET_TYPES,
  SNIPPET_VISIBILITIES,
  WORKFLOW_STATUS_ALIASES,
  WORKFLOW_STATUSES,
} from '../src/vocabulary.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await connect({ databaseUrl: database.url, dataDir: '', poolSize: 1 });
  await migrateToLatest(handle.db);
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

/** The values a `check (column in (...))` constraint of the migrated schema allows. */
async function allowed(table: string, column: string): Promise<string[]> {
  const rows = await database.query<{ def: string }>(
    `select pg_get_constraintdef(c.oid) as def
       from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
      where c.contype = 'c' and c.conrelid = $1::regclass and a.attname = $2`,
    [table, column],
  );
  const lists = rows.map((r) => [...r.def.matchAll(/'([^']*)'::text/g)].map((m) => m[1]!)).filter((l) => l.length > 0);
  expect(lists, `${table}.${column}`).toHaveLength(1);
  return lists[0]!;
}

describe('one source for each vocabulary', () => {
  it('the database allows exactly the values the domain defines', async () => {
    const expected: [string, string, readonly string[]][] = [
      ['members', 'role', ROLES],
      ['cards', 'workflow_status', WORKFLOW_STATUSES],
      ['todos', 'priority', PRIORITIES],
      ['milestones', 'kind', MILESTONE_KINDS],
      ['snippets', 'type', SNIPPET_TYPES],
      ['snippets', 'visibility', SNIPPET_VISIBILITIES],
      ['slack_subscriptions', 'cadence', CADENCES],
    ];
    for (const [table, column, values] of expected) expect(await allowed(table, column), `${table}.${column}`).toEqual([...values]);
  });

  it('every alias names a status of the domain list, and every status is its own alias', () => {
    for (const status of Object.values(WORKFLOW_STATUS_ALIASES)) expect(WORKFLOW_STATUSES).toContain(status);
    for (const status of WORKFLOW_STATUSES) expect(parseCardCommand(`ENG-1 move ${status}`)).toEqual({ kind: 'move', ref: 'ENG-1', status });
  });

  it('Slack takes every priority of the domain list', () => {
    for (const priority of PRIORITIES) expect(parseTodoCommand(`add Ship it !${priority}`)).toMatchObject({ kind: 'add', priority });
  });
});
