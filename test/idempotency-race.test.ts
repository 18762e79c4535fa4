import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { authenticateToken } from '../src/domain/authenticate.js';
import type { Principal } from '../src/domain/context.js';
import { requestHash } from '../src/domain/idempotency.js';
import { execute, type Runtime } from '../src/operations/execute.js';
import { operationNamed, operations } from '../src/operations/index.js';
import { parseOperationInput } from '../src/operations/operation-input.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * A write claims its Idempotency-Key (the key's lock and its stored record) in the statement
 * that re-reads the caller, whose snapshot is taken before the lock is: a request holding the
 * key that commits in between is not seen. Its record is, when the write stores its own: the
 * write then runs again and replays that record, never applying the request twice. The
 * commit is made to land exactly there: by the statement log, which kysely awaits.
 */
let t: TestServer;
let handle: DbHandle;
let other: pg.Client;
let rt: Runtime;
let owner: Principal;
let plant: (() => Promise<void>) | undefined;

beforeAll(async () => {
  t = await startTestServer();
  other = new pg.Client({ connectionString: t.database!.url });
  await other.connect();
  handle = await connect({
    databaseUrl: t.database!.url,
    dataDir: '',
    poolSize: 2,
    log: async (event) => {
      if (plant && event.level === 'query' && event.query.sql.includes('pg_try_advisory_xact_lock')) {
        const now = plant;
        plant = undefined;
        await now();
      }
    },
  });
  rt = { db: handle.db, clock: () => new Date(), publicBaseUrl: 'http://127.0.0.1/p' };
  owner = (await authenticateToken(t.server.db.db, t.token, new Date())).principal;
});
afterAll(async () => {
  await other?.end();
  await handle?.close();
  await t?.close();
});

it('replays the record of a request with the same key committed between its claim and its write, applying nothing twice', async () => {
  const op = operationNamed('createTodo');
  const title = `raced ${randomBytes(4).toString('hex')}`;
  const input = parseOperationInput(op, { title, priority: 'high' });
  const key = randomBytes(8).toString('hex');
  const first = JSON.stringify({ id: 'todo_first', title, answered: 'by the first request' });
  plant = async () => {
    await other.query(`insert into idempotency_keys (token_id, operation, key, request_hash, status, body) values ($1, 'createTodo', $2, $3, 201, $4)`, [owner.tokenId, key, requestHash(input), first]);
  };
  const outcome = await execute(rt, op, owner, input, key);
  expect(plant, 'the record was committed after the claim').toBeUndefined();
  expect(outcome).toEqual({ status: 201, body: first, replayed: true });
  const { rows } = await other.query('select count(*)::int as n from todos where title = $1', [title]);
  expect(rows[0].n, 'the raced write rolled back').toBe(0);
  const stored = await other.query('select body from idempotency_keys where token_id = $1 and key = $2', [owner.tokenId, key]);
  expect(stored.rows.map((r) => r.body)).toEqual([first]);
});

it('still replaces a record past its 24 hours', async () => {
  const op = operationNamed('createTodo');
  const title = `expired ${randomBytes(4).toString('hex')}`;
  const input = parseOperationInput(op, { title, priority: 'high' });
  const key = randomBytes(8).toString('hex');
  await other.query(`insert into idempotency_keys (token_id, operation, key, request_hash, status, body, created_at) values ($1, 'createTodo', $2, 'old', 201, '{}', now() - interval '25 hours')`, [owner.tokenId, key]);
  const outcome = await execute(rt, op, owner, input, key);
  expect(outcome.replayed).toBe(false);
  const stored = await other.query('select request_hash, body from idempotency_keys where token_id = $1 and key = $2', [owner.tokenId, key]);
  expect(stored.rows).toEqual([{ request_hash: requestHash(input), body: outcome.body }]);
});

it('stores an answer that carries a secret sealed, and replays it as first sent', async () => {
  const op = operationNamed('createToken');
  const input = parseOperationInput(op, { name: `sealed ${randomBytes(4).toString('hex')}`, scopes: ['read'] });
  const key = randomBytes(8).toString('hex');
  const first = await execute(rt, op, owner, input, key);
  const token = (JSON.parse(first.body!) as { token: string }).token;
  const stored = await other.query('select body from idempotency_keys where token_id = $1 and key = $2', [owner.tokenId, key]);
  expect(stored.rows[0].body).toMatch(/^sealed:v1:/);
  expect(stored.rows[0].body).not.toContain(token);
  expect(await execute(rt, op, owner, input, key)).toEqual({ ...first, replayed: true });
});

it('seals every answer that holds a secret: an operation with a field shown once is noStore', () => {
  const unsealed = operations.filter((op) => op.shownOnce !== undefined && !op.noStore).map((op) => op.name);
  expect(unsealed).toEqual([]);
  expect(operations.filter((op) => op.shownOnce !== undefined).map((op) => op.name).sort()).toEqual(['createToken', 'createWebhook', 'rotateWebhookSecret']);
});
