import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { authenticateToken } from '../src/domain/authenticate.js';
import type { Principal } from '../src/domain/context.js';
import { AppError } from '../src/domain/errors.js';
import { execute, type Outcome, type Runtime } from '../src/operations/execute.js';
import { operationNamed } from '../src/operations/index.js';
import { parseOperationInput } from '../src/operations/operation-input.js';
import * as make from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * A write's caller re-check goes out with the write's first statement (src/operations/execute.ts,
 * `holdNextStatement`), so the write runs in Postgres before the caller is confirmed. What
 * the caller's re-check says must still be the answer, and nothing of a refused write may
 * commit. A principal in hand is what another process's cache holds: here, one read before
 * the database changed under it, then used for a write through `execute` itself.
 */
let t: TestServer;
let handle: DbHandle;
let statements: string[] = [];
let rt: Runtime;

beforeAll(async () => {
  t = await startTestServer({}, { webhooks: false });
  handle = await connect({ databaseUrl: t.database!.url, dataDir: '', poolSize: 2, log: (event) => void statements.push(event.query.sql) });
  rt = { db: handle.db, clock: () => new Date(), publicBaseUrl: 'http://127.0.0.1/p' };
});
afterAll(async () => {
  await handle?.close();
  await t?.close();
});

/** A member of `role` with a token of `scopes`, as a process caches them now. */
async function cached(role: make.Role, scopes: make.Scope[] = ['read', 'write']): Promise<{ id: string; tokenId: string; principal: Principal }> {
  const someone = await make.memberWithToken(t, { role }, { scopes });
  const { principal } = await authenticateToken(t.server.db.db, someone.token, new Date());
  return { id: someone.id, tokenId: principal.tokenId!, principal };
}

async function run(principal: Principal, name: string, input: Record<string, unknown>, key = randomBytes(8).toString('hex')): Promise<Outcome | AppError> {
  const op = operationNamed(name);
  statements = [];
  return execute(rt, op, principal, parseOperationInput(op, input), key).catch((err: unknown) => {
    if (err instanceof AppError) return err;
    throw err;
  });
}

const count = async (table: string, where = 'true') => Number((await t.database!.query(`select count(*)::int as n from ${table} where ${where}`))[0].n);
const ran = (pattern: RegExp) => statements.some((s) => pattern.test(s));

describe('a write whose caller is refused when re-checked', () => {
  it('answers 401 for a token revoked since it was cached, though its insert ran, and commits nothing', async () => {
    const { tokenId, principal } = await cached('member');
    expect((await t.api('DELETE', `/v1/tokens/${tokenId}`)).status).toBe(204);
    const before = await count('todos');
    const answer = await run(principal, 'createTodo', { title: 'after the revocation' });
    expect(answer).toMatchObject({ status: 401, code: 'unauthorized' });
    // Sent with the re-check, so it ran; rolled back once the re-check refused.
    expect(ran(/insert into "todos"/)).toBe(true);
    expect(await count('todos')).toBe(before);
    expect(await count('events', `type = 'todo.created' and data->>'title' = 'after the revocation'`)).toBe(0);
  });

  it('answers the refusal, not what the write ran into on its own (a todo that is not there: 401, not 404)', async () => {
    const { tokenId, principal } = await cached('member');
    expect((await t.api('DELETE', `/v1/tokens/${tokenId}`)).status).toBe(204);
    expect(await run(principal, 'completeTodo', { id: 'todo_nowhere' })).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('answers 403 for a member made a viewer since, and stores no answer for its key', async () => {
    const { id, principal } = await cached('member');
    expect((await t.api('PATCH', `/v1/members/${id}`, { body: { role: 'viewer' } })).status).toBe(200);
    const key = randomBytes(8).toString('hex');
    const before = await count('todos');
    expect(await run(principal, 'createTodo', { title: 'as a viewer' }, key)).toMatchObject({ status: 403, code: 'forbidden_role' });
    expect(await count('todos')).toBe(before);
    expect(await count('idempotency_keys', `key = '${key}'`)).toBe(0);
  });
});

describe('a write whose caller has another role when re-checked', () => {
  it('runs again as the caller now is: an admin made a member since is refused a board', async () => {
    const { id, principal } = await cached('admin', ['read', 'write', 'config:write']);
    expect((await t.api('PATCH', `/v1/members/${id}`, { body: { role: 'member' } })).status).toBe(200);
    const before = await count('boards');
    expect(await run(principal, 'createBoard', { name: 'Not yours', slug: 'not-yours', ref_prefix: 'NYO' })).toMatchObject({ status: 403, code: 'forbidden_role' });
    expect(await count('boards')).toBe(before);
  });

  it('and a member made an admin since gets the board, though the write refused it as it was cached', async () => {
    const { id, principal } = await cached('member', ['read', 'write', 'config:write']);
    expect((await t.api('PATCH', `/v1/members/${id}`, { body: { role: 'admin' } })).status).toBe(200);
    const answer = await run(principal, 'createBoard', { name: 'Now yours', slug: 'now-yours', ref_prefix: 'NWY' });
    expect(answer).toMatchObject({ status: 201, replayed: false });
    expect(await count('boards', `slug = 'now-yours'`)).toBe(1);
  });
});

describe('a key already answered', () => {
  it('replays the stored answer and leaves what the write ran again uncommitted', async () => {
    const { principal } = await cached('member');
    const key = randomBytes(8).toString('hex');
    const first = (await run(principal, 'createTodo', { title: 'once' }, key)) as Outcome;
    expect(first.status).toBe(201);
    const before = await count('todos');
    const again = (await run(principal, 'createTodo', { title: 'once' }, key)) as Outcome;
    expect(again).toEqual({ ...first, replayed: true });
    expect(ran(/insert into "todos"/)).toBe(true);
    expect(await count('todos')).toBe(before);
    // With another body, the key is refused, and nothing commits either.
    expect(await run(principal, 'createTodo', { title: 'twice' }, key)).toMatchObject({ status: 409, code: 'idempotency_key_reused' });
    expect(await count('todos')).toBe(before);
  });
});
