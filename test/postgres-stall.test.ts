import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../src/domain/token-format.js';
import { blackHoleProxy } from './helpers/black-hole-proxy.js';
import { expectEnvelope } from './helpers/envelope.js';
import { PrivatePostgres } from './helpers/postgres-server.js';
import { apiClient, type Api, type ApiResponse } from './helpers/server.js';
import { spawnTack, type ServingTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';

/**
 * Postgres that does not answer, while nothing closes: the server stalled (its postmaster
 * and backends SIGSTOPped), or a network black hole between tack and a live server (a proxy
 * that drops everything). Requests must not wait for it forever: a read and a keyed write
 * each answer 503 in the envelope with Retry-After within the configured bound, /readyz
 * answers 503 promptly, and each failed request leaves one error record. Once Postgres
 * answers again, tack serves by itself (after a black hole, the connections it opened
 * before are dead for good and must be dropped, not reused), and the keyed write retried
 * with its key is applied exactly once. Small timeouts through the environment keep the
 * test short.
 */

const STATEMENT_TIMEOUT_MS = 600;
const CONNECT_TIMEOUT_MS = 1_000;
// statement timeout + tack's 1 s of grace for the answer, or the connect timeout, plus room for a loaded machine.
const BOUND_MS = 6_000;

let pgServer: PrivatePostgres;
let tack: ServingTack | undefined;
let api: Api;
const token = generateToken();

beforeAll(async () => {
  pgServer = await PrivatePostgres.create();
}, 120_000);
afterAll(async () => {
  pgServer?.resume();
  await tack?.kill('SIGKILL');
  await pgServer?.destroy();
});

/** A database of its own on the private server, and tack serving it at `url` (through a proxy, or not). */
async function serve(database: string, url: string): Promise<void> {
  await pgServer.query(`create database ${database}`);
  tack = await spawnTack({
    DATABASE_URL: url,
    TACK_BOOTSTRAP_TOKEN: token,
    DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  });
  api = apiClient(tack.url, token);
}

interface Timed {
  ms: number;
  res: ApiResponse | undefined;
}

/** The answer and how long it took; `res` undefined when none came within `BOUND_MS` (the request is left running). */
async function timed(request: () => Promise<ApiResponse>): Promise<Timed> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const res = await Promise.race([
    request(),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), BOUND_MS);
    }),
  ]);
  clearTimeout(timer);
  return { ms: Date.now() - started, res };
}

function expect503Within(what: string, t: Timed): ApiResponse {
  expect(t.res, `${what}: no answer within ${BOUND_MS} ms`).toBeDefined();
  const res = t.res!;
  expectEnvelope(res, 503, 'service_unavailable');
  expect(Number(res.headers.get('retry-after')), what).toBeGreaterThan(0);
  expect(res.text, what).not.toMatch(/timeout|postgres|statement|57014|connect/i);
  return res;
}

/** tack's JSON log records (stdout) from line `from` on. */
function records(from: number): Record<string, unknown>[] {
  return tack!.stdout.slice(from).flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

const titleCount = async (database: string, title: string) =>
  ((await pgServer.query('select count(*)::int as n from todos where title = $1', [title], database))[0]!.n as number);

/**
 * The whole story around one outage: warm up, `cut` Postgres off, the bounded 503s and their
 * log records, `restore` it, then recovery and the retried keyed write applied once.
 */
async function outage(database: string, cut: () => void, restore: () => void): Promise<void> {
    // Warm: the pool holds connections, and an acknowledged write is there before the stall.
    const before = await api('POST', '/v1/todos', { body: { title: 'before the stall' }, headers: { 'idempotency-key': 'stall-before' } });
    expect(before.status, before.text).toBe(201);
    // Several at once, so the pool holds idle connections: the stalled requests below are sent
    // on open connections (the statement bound), the later one must connect (the connect bound).
    for (const res of await Promise.all(Array.from({ length: 6 }, () => api('GET', '/v1/todos')))) expect(res.status).toBe(200);
    expect((await api('GET', '/readyz', { token: null })).status).toBe(200);
    const logFrom = tack!.stdout.length;

    cut();
    // Restored even when an expectation fails, so the next test does not meet a stopped server.
    try {
      const [read, write, ready] = await Promise.all([
        timed(() => api('GET', '/v1/todos')),
        timed(() => api('POST', '/v1/todos', { body: { title: 'during the stall' }, headers: { 'idempotency-key': 'stall-write' } })),
        timed(() => api('GET', '/readyz', { token: null })),
      ]);
      const failedRead = expect503Within('read', read);
      const failedWrite = expect503Within('keyed write', write);
      expect(ready.res?.status, `/readyz: ${ready.res?.text ?? `no answer within ${BOUND_MS} ms`}`).toBe(503);
      expect(ready.ms).toBeLessThan(3_000);
      expect(ready.res!.body.checks).toEqual({ database: 'down' });
      // A second round while still stalled: the connections that timed out were dropped, new ones cannot connect.
      const again = await timed(() => api('GET', '/v1/todos'));
      const failedAgain = expect503Within('read again', again);
      expect(tack!.exit, tack!.output()).toBeUndefined();

      // One error record per failed request, saying what failed, without a stack or the URL's secrets.
      // (The records come through a pipe, which the answer may overtake.)
      const ofRequest = (res: ApiResponse) => records(logFrom).filter((r) => r.reqId === res.body.request_id && (r.level as number) >= 40);
      await waitFor('the failed requests logged', () => [failedRead, failedWrite, failedAgain].every((res) => ofRequest(res).length > 0));
      for (const failed of [failedRead, failedWrite, failedAgain]) {
        const mine = ofRequest(failed);
        expect(mine, JSON.stringify(mine)).toHaveLength(1);
        expect(mine[0]!.msg).toMatch(/database/i);
        expect(JSON.stringify(mine[0])).not.toMatch(/"stack"|postgres:\/\//);
      }
      // Each waited on a statement's answer (DatabaseTimeout) or, when the warm pool had no idle
      // connection left for it (the warm-up's requests may not have overlapped on a busy
      // machine), on connecting: bounded either way.
      for (const failed of [failedRead, failedWrite]) {
        const dbError = ofRequest(failed)[0]!.db_error as { type: string; message: string };
        expect(dbError.type === 'DatabaseTimeout' || /timeout exceeded when trying to connect|Connection terminated due to connection timeout/.test(dbError.message), JSON.stringify(dbError)).toBe(true);
      }
      expect([failedRead, failedWrite].some((failed) => (ofRequest(failed)[0]!.db_error as { type: string }).type === 'DatabaseTimeout'), 'at least one statement bound').toBe(true);
    } finally {
      restore();
    }
    // Back by itself: reads and /readyz work again.
    await waitFor('a read served again', async () => (await api('GET', '/v1/todos')).status === 200, { timeoutMs: 30_000, intervalMs: 100 });
    await waitFor('/readyz 200 again', async () => (await api('GET', '/readyz', { token: null })).status === 200, { timeoutMs: 30_000, intervalMs: 100 });

    // The client retries the unacknowledged write with its key until it is answered 201
    // (409 while the stalled attempt's transaction is still being ended): applied once.
    const retried = await waitFor(
      'the keyed write retried and acknowledged',
      async () => {
        const res = await api('POST', '/v1/todos', { body: { title: 'during the stall' }, headers: { 'idempotency-key': 'stall-write' } });
        expect([201, 409, 503], res.text).toContain(res.status);
        return res.status === 201 ? res : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const replay = await api('POST', '/v1/todos', { body: { title: 'during the stall' }, headers: { 'idempotency-key': 'stall-write' } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(retried.body.id);
    expect(await titleCount(database, 'during the stall')).toBe(1);
    expect(await titleCount(database, 'before the stall')).toBe(1);
    const list = await api('GET', '/v1/todos');
    expect(list.status).toBe(200);
    expect(list.text).toContain('during the stall');
}

describe('Postgres not answering', () => {
  it('stalled (SIGSTOP): answers 503 within the bound, recovers by itself after SIGCONT, and applies a retried keyed write once', { timeout: 120_000 }, async () => {
    await serve('stalled', pgServer.url('stalled'));
    await outage('stalled', () => pgServer.pause(), () => pgServer.resume());
    expect((await tack!.kill('SIGTERM')).code).toBe(0);
    tack = undefined;
  });

  it('behind a network black hole: answers 503 within the bound, drops the dead connections, and applies a retried keyed write once', { timeout: 120_000 }, async () => {
    const proxy = await blackHoleProxy(pgServer.port);
    try {
      await serve('holed', `postgres://postgres@127.0.0.1:${proxy.port}/holed`);
      await outage('holed', () => proxy.blackHole(), () => proxy.heal());
      // Every connection opened before the black hole is dead: a batch as large as the pool
      // was warmed with is served whole, so none of them was handed out again.
      await waitFor('a batch of reads served whole', async () => (await Promise.all(Array.from({ length: 6 }, () => api('GET', '/v1/todos')))).every((r) => r.status === 200), { timeoutMs: 30_000, intervalMs: 100 });
      for (let round = 0; round < 3; round++) {
        const batch = await Promise.all(Array.from({ length: 8 }, () => api('GET', '/v1/todos')));
        expect(batch.map((r) => r.status)).toEqual(Array(8).fill(200));
      }
      expect((await tack!.kill('SIGTERM')).code).toBe(0);
      tack = undefined;
    } finally {
      await tack?.kill('SIGKILL');
      tack = undefined;
      await proxy.close();
    }
  });
});
