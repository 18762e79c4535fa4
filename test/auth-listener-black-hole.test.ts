import { afterAll, beforeAll, expect, it } from 'vitest';
import { proxiedDatabase, type BlackHoleProxy } from './helpers/black-hole-proxy.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * A process whose connection listening for auth changes goes dead without any error (a
 * network black hole on that one flow), while its other connections still work. Another
 * process revokes a token the first one has cached: the first must refuse it within its
 * heartbeat and answer bound (small here), not after the cache's 60 s, and listen again on a
 * new connection by itself.
 */
const TIMING = { heartbeatMs: 200, answerMs: 1_000 };
// Heartbeat + answer bound, plus room for a loaded machine: far below the cache's 60 s.
const BOUND_MS = 8_000;

let db: TestDatabase;
let proxy: BlackHoleProxy;
let a: TestServer; // through the proxy
let b: TestServer; // direct

beforeAll(async () => {
  db = await createTestDatabase();
  const proxied = await proxiedDatabase(db.url);
  proxy = proxied.proxy;
  a = await startTestServer({ DATABASE_URL: proxied.url }, { listenTiming: TIMING });
  b = await startTestServer({ DATABASE_URL: db.url, TACK_BOOTSTRAP_TOKEN: a.token });
});
afterAll(async () => {
  await b?.server.close();
  await a?.server.close();
  await proxy?.close();
  await db?.drop();
});

/** The client port of A's listening backend (a LISTEN backend reached through the proxy), other than `not`. */
async function listenerOfA(not?: number): Promise<number | undefined> {
  const rows = await db.query<{ client_port: number }>(`select client_port from pg_stat_activity where datname = current_database() and query ilike 'LISTEN tack_auth_changed%'`);
  const mine = proxy.connections();
  return rows.map((r) => r.client_port).find((port) => mine.includes(port) && port !== not);
}

/** A read token made through B, used once on A so A caches its principal (A must be listening). */
async function cachedOnA(name: string): Promise<{ id: string; token: string }> {
  const token = (await b.api('POST', '/v1/tokens', { body: { name, scopes: ['read'] } })).body;
  expect((await a.api('GET', '/v1/me', { token: token.token })).status).toBe(200);
  expect(a.server.authCache.cachedToken(token.token), 'cached on A').toBeDefined();
  return token;
}

/** Revokes through B and returns how long A took to refuse the token. */
async function refusedByA(token: { id: string; token: string }): Promise<number> {
  expect((await b.api('DELETE', `/v1/tokens/${token.id}`)).status).toBe(204);
  const started = Date.now();
  await waitFor('A to refuse the revoked token', async () => (await a.api('GET', '/v1/me', { token: token.token })).status === 401, { timeoutMs: BOUND_MS });
  return Date.now() - started;
}

it('refuses a token revoked elsewhere within the heartbeat bound after its listening connection went silently dead, and listens again', { timeout: 60_000 }, async () => {
  const dead = await waitFor('A listening', () => listenerOfA());
  const token = await cachedOnA('revoked while A is deaf');

  expect(proxy.blackHoleConnection(dead)).toBe(true);
  const ms = await refusedByA(token);
  expect(ms).toBeLessThan(BOUND_MS);
  // A's other connections kept working meanwhile: it answered (401) from the database.
  expect((await a.api('GET', '/v1/todos')).status).toBe(200);

  // A new connection listens; the dead one's backend is still there (nothing closed it).
  await waitFor('A listening again on a new connection', () => listenerOfA(dead));
  // Caching again, and hearing B's revocations again (through NOTIFY: within the bound too).
  const next = await cachedOnA('revoked once A listens again');
  expect(await refusedByA(next)).toBeLessThan(BOUND_MS);
});

it('caches no principal while it does not hear other processes, and caches again once it does', async () => {
  const token = (await b.api('POST', '/v1/tokens', { body: { name: 'read while deaf', scopes: ['read'] } })).body;
  // As the listener leaves it between a lost connection and the next LISTEN.
  a.server.authCache.hearing(false);
  try {
    for (let i = 0; i < 2; i++) expect((await a.api('GET', '/v1/me', { token: token.token })).status).toBe(200);
    expect(a.server.authCache.cachedToken(token.token)).toBeUndefined();
  } finally {
    a.server.authCache.hearing(true);
  }
  expect((await a.api('GET', '/v1/me', { token: token.token })).status).toBe(200);
  expect(a.server.authCache.cachedToken(token.token)).toBeDefined();
});
