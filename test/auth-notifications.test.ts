import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * Each server listens on Postgres for token and member changes made by other processes.
 * Losing that connection must neither crash the process nor leave it deaf.
 */
let t: TestServer;
let other: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  // A second server on the same database, as another API process would be.
  other = await startTestServer({ DATABASE_URL: t.database!.url, TACK_BOOTSTRAP_TOKEN: t.token });
});
afterAll(async () => {
  await other?.server.close();
  await t?.close();
});

const listeners = () =>
  t.database!.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and query ilike 'LISTEN tack_auth_changed%'`);

it('listens again after its connection is killed, and a revocation elsewhere still takes effect', async () => {
  const token = (await t.api('POST', '/v1/tokens', { body: { name: 'watched', scopes: ['read'] } })).body;
  expect((await other.api('GET', '/v1/me', { token: token.token })).status).toBe(200); // cached there now
  const before = await waitFor('both servers listening', async () => ((await listeners()).length === 2 ? listeners() : undefined));
  await t.database!.query('select pg_terminate_backend(pid) from pg_stat_activity where pid = any($1)', [before.map((r) => r.pid)]);
  await waitFor('both servers listening again on new connections', async () => {
    const now = await listeners();
    return now.length === 2 && now.every((r) => !before.some((b) => b.pid === r.pid));
  });
  expect((await t.api('DELETE', `/v1/tokens/${token.id}`)).status).toBe(204);
  await waitFor('the other server to refuse the revoked token', async () => (await other.api('GET', '/v1/me', { token: token.token })).status === 401);
});

it('forgets what it cached while deaf once it listens again (a revocation it could not hear)', async () => {
  const token = (await t.api('POST', '/v1/tokens', { body: { name: 'revoked while deaf', scopes: ['read'] } })).body;
  const before = await waitFor('both servers listening', async () => ((await listeners()).length === 2 ? listeners() : undefined));
  // Both servers lose their listening connection; each listens again about a second later.
  await t.database!.query('select pg_terminate_backend(pid) from pg_stat_activity where pid = any($1)', [before.map((r) => r.pid)]);
  await waitFor('the listeners to be gone', async () => (await listeners()).length === 0);
  // Cached on the other server while it cannot hear, then revoked.
  expect((await other.api('GET', '/v1/me', { token: token.token })).status).toBe(200);
  expect((await t.api('DELETE', `/v1/tokens/${token.id}`)).status).toBe(204);
  await waitFor('both servers listening again', async () => (await listeners()).length === 2);
  expect((await other.api('GET', '/v1/me', { token: token.token })).status).toBe(401);
});
