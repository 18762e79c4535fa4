import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { authenticateToken } from '../src/domain/authenticate.js';
import type { Principal } from '../src/domain/context.js';
import { execute, type Runtime } from '../src/operations/execute.js';
import { operationNamed } from '../src/operations/index.js';
import { parseOperationInput } from '../src/operations/operation-input.js';
import { proxiedDatabase, type BlackHoleProxy } from './helpers/black-hole-proxy.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * A write's statements (issue 28): begin, the caller re-checked with the idempotency lock (one statement), the key's
 * lookup, the write and the reads of its subject for the event (none after the write where
 * the write answers its subject as its reader would: moveCard, the todo writes, createSnippet; none before the write where
 * its own statement hands over the subject's old values: moveCard, completeTodo), then one statement that
 * records the event with its webhook deliveries, the idempotency answer and the NOTIFY, and
 * commit. No global events lock. Counted on a handle that records each statement; on the wire,
 * BEGIN and the caller's re-check go with the write's first statement and COMMIT with the events
 * statement (src/db/bound-transaction.ts, src/operations/execute.ts): two round trips, counted
 * through a TCP proxy.
 */
let t: TestServer;
let handle: DbHandle;
let statements: string[] = [];
let rt: Runtime;
let owner: Principal;
// The same, through a TCP proxy that counts what the pool sends: one chunk per round trip.
let proxy: BlackHoleProxy;
let proxied: DbHandle;

beforeAll(async () => {
  t = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1' }, { webhooks: false });
  handle = await connect({ databaseUrl: t.database!.url, dataDir: '', poolSize: 2, log: (event) => void statements.push(event.query.sql) });
  rt = { db: handle.db, clock: () => new Date(), publicBaseUrl: 'http://127.0.0.1/p' };
  owner = (await authenticateToken(t.server.db.db, t.token, new Date())).principal;
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Trips', slug: 'trips', ref_prefix: 'TRP' } })).status).toBe(201);
  const through = await proxiedDatabase(t.database!.url);
  proxy = through.proxy;
  proxied = await connect({ databaseUrl: through.url, dataDir: '', poolSize: 1 });
});
afterAll(async () => {
  await proxied?.close();
  await proxy?.close();
  await handle?.close();
  await t?.close();
});

/** `execute` of the operation `name` as the owner, with a new key, on `runtime`: its answer's body. */
async function executed(runtime: Runtime, name: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const op = operationNamed(name);
  const outcome = await execute(runtime, op, owner, parseOperationInput(op, input), randomBytes(8).toString('hex'));
  return JSON.parse(outcome.body!) as Record<string, unknown>;
}

async function statementsOf(name: string, input: Record<string, unknown>): Promise<{ sql: string[]; body: Record<string, unknown> }> {
  statements = [];
  const body = await executed(rt, name, input);
  return { sql: statements, body };
}

const ONE_STATEMENT_AFTER_THE_WRITE = /^\s*with written as \(\s*insert into events .*stored as \(insert into idempotency_keys .*pg_notify/s;

it('records the event, its deliveries, the idempotency answer and the NOTIFY in one statement, with no global lock', async () => {
  const todo = await statementsOf('createTodo', { title: 'x', priority: 'high' });
  const card = (await t.api('POST', '/v1/cards', { body: { board: 'trips', title: 'c' } })).body;
  const writes = {
    createTodo: todo.sql,
    createSnippet: (await statementsOf('createSnippet', { name: 'snip x', type: 'sql', body: 'select 1' })).sql,
    completeTodo: (await statementsOf('completeTodo', { id: todo.body.id })).sql,
    moveCard: (await statementsOf('moveCard', { id: card.id, workflow_status: 'in_progress' })).sql,
  };
  for (const [name, sql] of Object.entries(writes)) {
    expect(sql.at(-1), name).toBe('commit');
    expect(sql.at(-2), name).toMatch(ONE_STATEMENT_AFTER_THE_WRITE);
    expect(sql.filter((s) => /pg_advisory_xact_lock\(\$1\)|pg_notify|insert into "?idempotency_keys|insert into "?events|webhook_deliveries/.test(s)), name).toHaveLength(1);
  }
  // One event is one VALUES row, not a recordset; with no webhook in the organization (read in
  // the first statement), no statement has a deliveries clause.
  for (const [name, sql] of Object.entries(writes)) {
    expect(sql.at(-2), name).not.toMatch(/jsonb_to_recordset/);
    expect(sql.at(-2), name).not.toMatch(/webhook_deliveries/);
  }
  // An event takes no lock on its organization's row, which every writer of the organization shares (migration 0027).
  const keys = await sql<{ conname: string }>`select conname from pg_constraint where conrelid = 'events'::regclass and contype = 'f'`.execute(t.server.db.db);
  expect(keys.rows).toEqual([]);
  expect(Object.fromEntries(Object.entries(writes).map(([name, sql]) => [name, sql.length]))).toEqual({ createTodo: 5, createSnippet: 5, completeTodo: 5, moveCard: 5 });
});

it('queues deliveries in the events statement once the organization has an enabled webhook, never for a personal todo', async () => {
  const hook = await t.api('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
  expect(hook.status).toBe(201);
  const card = (await t.api('POST', '/v1/cards', { body: { board: 'trips', title: 'hooked' } })).body;
  const moved = await statementsOf('moveCard', { id: card.id, workflow_status: 'in_progress' });
  expect(moved.sql.at(-2)).toMatch(/insert into webhook_deliveries/);
  const queued = await t.database!.query('select d.webhook_id from webhook_deliveries d join events e on e.seq = d.event_seq where e.subject_id = $1 and e.type = $2', [card.id, 'card.moved']);
  expect(queued.map((r) => r.webhook_id)).toEqual([hook.body.id]);
  const todo = await statementsOf('createTodo', { title: 'mine alone', priority: 'low' });
  expect(todo.sql.at(-2)).not.toMatch(/webhook_deliveries/);
  // Turned off, it is as if there were none.
  expect((await t.api('PATCH', `/v1/webhooks/${hook.body.id}`, { body: { enabled: false } })).status).toBe(200);
  const again = await statementsOf('moveCard', { id: card.id, workflow_status: 'backlog' });
  expect(again.sql.at(-2)).not.toMatch(/webhook_deliveries/);
});

it('sends a write in two round trips: BEGIN, the caller re-checked and the write, then the events statement with COMMIT', async () => {
  const prt: Runtime = { ...rt, db: proxied.db };
  const run = async (name: string, input: Record<string, unknown>) => {
    const before = proxy.chunksSent();
    const body = await executed(prt, name, input);
    return { trips: proxy.chunksSent() - before, body };
  };
  // The connection opened, and each statement prepared, by a first run of each.
  const todo = await run('createTodo', { title: 'warm', priority: 'high' });
  await run('completeTodo', { id: todo.body.id });
  const warmCard = (await t.api('POST', '/v1/cards', { body: { board: 'trips', title: 'warm' } })).body;
  await run('moveCard', { id: warmCard.id, workflow_status: 'in_progress' });
  await run('createSnippet', { name: 'warm trips', type: 'sql', body: 'select 1' });

  const created = await run('createTodo', { title: 'trips', priority: 'high' });
  const card = (await t.api('POST', '/v1/cards', { body: { board: 'trips', title: 'trips' } })).body;
  const trips = {
    createTodo: created.trips,
    createSnippet: (await run('createSnippet', { name: 'snip trips', type: 'sql', body: 'select 1' })).trips,
    completeTodo: (await run('completeTodo', { id: created.body.id })).trips,
    moveCard: (await run('moveCard', { id: card.id, workflow_status: 'in_progress' })).trips,
    // A move that changes nothing records no event: the idempotency record alone goes out with COMMIT.
    moveCardNowhere: (await run('moveCard', { id: card.id, workflow_status: 'in_progress' })).trips,
  };
  expect(trips).toEqual({ createTodo: 2, createSnippet: 2, completeTodo: 2, moveCard: 2, moveCardNowhere: 2 });
});
