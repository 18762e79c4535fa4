import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateToken } from '../src/domain/token-format.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { expectEnvelope } from './helpers/envelope.js';
import { lockTable, waitForBlockedQuery } from './helpers/locks.js';
import { apiClient, type Api } from './helpers/server.js';
import { spawnTack, type ServingTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';

/**
 * A Postgres backend can end under a running request (a restart, a failover, an operator's
 * pg_terminate_backend). The process must live on: that request answers 503 with
 * Retry-After, and the next ones are served as soon as Postgres answers. `tack serve` runs as
 * a child process here, so a crash shows as its exit, and only this test's own database's
 * backends are terminated.
 */
let db: TestDatabase;
let s: ServingTack;
let api: Api;

beforeAll(async () => {
  db = await createTestDatabase();
  const token = generateToken();
  s = await spawnTack({ DATABASE_URL: db.url, TACK_BOOTSTRAP_TOKEN: token });
  api = apiClient(s.url, token);
}, 120_000);
afterAll(async () => {
  await s?.kill('SIGKILL');
  await db?.drop();
});

const serverBackends = () =>
  db.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');

it('answers 503 with Retry-After when the backend of a request ends mid-transaction, lives on and serves the next request', { timeout: 120_000 }, async () => {
  expect((await api('POST', '/v1/todos', { body: { title: 'before' } })).status).toBe(201);
  for (let round = 0; round < 3; round++) {
    const lock = await lockTable(db.url, 'todos');
    let res;
    try {
      const pending = api('POST', '/v1/todos', { body: { title: `interrupted ${round}` } });
      const pid = await waitForBlockedQuery(db.query, db.name, 'insert into "todos"%');
      await db.query('select pg_terminate_backend($1)', [pid]);
      res = await pending;
    } finally {
      await lock.release();
    }
    expectEnvelope(res, 503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.text).not.toMatch(/terminat|57P01|postgres/i);
    expect(s.exit, s.output()).toBeUndefined();
    const next = await api('POST', '/v1/todos', { body: { title: `after ${round}` } });
    expect(next.status, next.text).toBe(201);
  }
  const titles = (await db.query<{ title: string }>('select title from todos')).map((r) => r.title);
  expect(titles.filter((x) => x.startsWith('interrupted'))).toEqual([]);
});

it('serves again at once after every one of its backends is terminated, the listening one included', { timeout: 120_000 }, async () => {
  const before = await serverBackends();
  expect(before.length).toBeGreaterThan(0);
  await db.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  const res = await waitFor('a request served again', async () => {
    const r = await api('POST', '/v1/todos', { body: { title: 'after a mass termination' } });
    return r.status === 201 ? r : undefined;
  }, { timeoutMs: 10_000 });
  expect(res.status).toBe(201);
  expect(s.exit, s.output()).toBeUndefined();
  // The process listens for auth changes again on a new connection.
  await waitFor('LISTEN on a new connection', async () => {
    const rows = await db.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and query ilike 'LISTEN tack_auth_changed%'`);
    return rows.length === 1 && !before.some((b) => b.pid === rows[0]!.pid);
  });
});
