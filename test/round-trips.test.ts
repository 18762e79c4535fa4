import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { authenticateToken } from '../src/domain/authenticate.js';
import type { Principal } from '../src/domain/context.js';
import { execute, type Runtime } from '../src/operations/execute.js';
import { operationNamed } from '../src/operations/index.js';
import { parseOperationInput } from '../src/operations/operation-input.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * The busiest reads answer in one statement, one round trip to Postgres: a board or
 * milestone named in a list's filters is found by the list's own statement, not by a lookup
 * before it (each round trip is a protocol exchange on both sides, and a wait under load).
 * The reads run through `execute`, as every face runs them, on a handle that records each
 * statement.
 */

let t: TestServer;
let handle: DbHandle;
let statements: string[] = [];
let rt: Runtime;
let owner: Principal;

beforeAll(async () => {
  t = await startTestServer();
  handle = await connect({ databaseUrl: t.database!.url, dataDir: '', poolSize: 2, log: (event) => void statements.push(event.query.sql) });
  rt = { db: handle.db, clock: () => new Date(), publicBaseUrl: 'http://127.0.0.1/p' };
  owner = (await authenticateToken(t.server.db.db, t.token, new Date())).principal;
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Trips', slug: 'trips', ref_prefix: 'TRP' } })).status).toBe(201);
  expect((await t.api('POST', '/v1/milestones', { body: { ref: 'T1', name: 'Trips one', kind: 'sprint' } })).status).toBe(201);
  for (let i = 0; i < 3; i++) {
    expect((await t.api('POST', '/v1/cards', { body: { board: 'trips', title: `trip ${i}`, milestone: 'T1' } })).status).toBe(201);
  }
  expect((await t.api('POST', '/v1/snippets', { body: { name: 'trip', type: 'txt', body: 'x' } })).status).toBe(201);
});
afterAll(async () => {
  await handle?.close();
  await t?.close();
});

/** The statements one read runs, and its answer. */
async function statementsOf(name: string, input: Record<string, unknown>): Promise<{ sql: string[]; body: { data?: unknown[]; next_cursor?: string } }> {
  const op = operationNamed(name);
  statements = [];
  const outcome = await execute(rt, op, owner, parseOperationInput(op, input));
  return { sql: statements, body: JSON.parse(outcome.body!) };
}

it('lists cards by board, milestone, status and assignee, with a cursor, in one statement', async () => {
  const first = await statementsOf('listCards', { board: 'trips', milestone: 't1', status: 'backlog', limit: 2 });
  expect(first.body.data).toHaveLength(2);
  expect(first.sql).toHaveLength(1);
  const next = await statementsOf('listCards', { board: 'trips', milestone: 'T1', status: 'backlog', limit: 2, cursor: first.body.next_cursor });
  expect(next.body.data).toHaveLength(1);
  expect(next.sql).toHaveLength(1);
  expect((await statementsOf('listCards', { board: 'trips', assignee: 'me' })).sql).toHaveLength(1);
});

it('lists and gets snippets in one statement', async () => {
  const list = await statementsOf('listSnippets', {});
  expect(list.body.data).toHaveLength(1);
  expect(list.sql).toHaveLength(1);
  expect((await statementsOf('getSnippet', { id: 'trip' })).sql).toHaveLength(1);
});
