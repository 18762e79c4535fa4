import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './helpers/envelope.js';
import { startPrivateRedis, type PrivateRedis } from './helpers/redis.js';
import { apiClient, startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { REDIS_URL } from './helpers/services.js';
import { spawnTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function server(env: Record<string, string>): Promise<TestServer> {
  const s = await startTestServer(env);
  cleanups.push(() => s.close());
  return s;
}

function expectRateHeaders(res: ApiResponse, limit: number): { remaining: number; reset: number } {
  const what = `${res.status} ${res.text.slice(0, 100)}`;
  expect(res.headers.get('ratelimit-limit'), what).toBe(String(limit));
  const remaining = Number(res.headers.get('ratelimit-remaining'));
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(Number.isInteger(remaining) && remaining >= 0 && remaining <= limit, what).toBe(true);
  expect(Number.isInteger(reset) && reset >= 1 && reset <= 60, what).toBe(true);
  return { remaining, reset };
}

describe('rate limits (contract §5)', () => {
  it('puts RateLimit-* on every /v1 response, 401 and 404 included', async () => {
    const t = await server({ RATE_LIMIT_PER_MINUTE: '1000' });
    const responses = [
      await t.api('GET', '/v1/me'),
      await t.api('GET', '/v1/me', { token: null }),
      await t.api('GET', '/v1/me', { token: 'tack_live_wrong' }),
      await t.api('GET', '/v1/nowhere'),
      await t.api('GET', '/v1/nowhere', { token: null }),
      await t.api('PUT', '/v1/tokens'),
      await t.api('POST', '/v1/tokens', { body: { name: '' } }),
      await t.api('POST', '/v1/tokens', { raw: '{', headers: { 'content-type': 'application/json' } }),
      await t.api('GET', '/v1/openapi.json', { token: null }),
      // /v1 with a query, and a path the router decodes to /v1/me: counted and served as /v1.
      await t.api('GET', '/v1?x=1'),
      await t.api('GET', '/%76%31/me'),
      // Refused by the router before any hook runs: counted all the same.
      await t.api('GET', '/v1/tokens/%E0%A4%A'),
      // Refused by Node's HTTP parser before Fastify sees them: counted by address.
      await t.api('GET', `/v1/tokens?cursor=${'a'.repeat(100_000)}`),
      await t.api('GET', '/v1/me', { headers: { 'x-padding': 'p'.repeat(100_000) } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 401, 404, 404, 405, 422, 400, 200, 404, 200, 400, 431, 431]);
    for (const r of responses) expectRateHeaders(r, 1000);
  });

  it('counts per token and answers 429 rate_limited with Retry-After past the limit, doing nothing', async () => {
    const t = await server({ RATE_LIMIT_PER_MINUTE: '5' });
    const other = await t.api('POST', '/v1/tokens', { body: { name: 'second caller', scopes: ['read', 'write'] } }); // 1 of 5
    expect(other.status).toBe(201);
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.api('GET', '/v1/me');
      expect(res.status).toBe(200);
      remaining.push(expectRateHeaders(res, 5).remaining);
    }
    expect(remaining).toEqual([3, 2, 1, 0]);
    const limited = await t.api('POST', '/v1/tokens', { body: { name: 'over the limit' } });
    expectEnvelope(limited, 429, 'rate_limited');
    expectRateHeaders(limited, 5);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    const names = await t.database!.query(`select 1 from tokens where name = 'over the limit'`);
    expect(names).toHaveLength(0);
    // Another token has its own count; the process's own endpoints are not limited.
    expect((await t.api('GET', '/v1/me', { token: other.body.token })).status).toBe(200);
    expect((await t.api('GET', '/healthz', { token: null })).status).toBe(200);
    // Callers without a valid token are counted by address, apart from tokens.
    for (let i = 0; i < 5; i++) expect((await t.api('GET', '/v1/me', { token: null })).status).toBe(401);
    expectEnvelope(await t.api('GET', '/v1/me', { token: null }), 429, 'rate_limited');
  });

  it('counts what the HTTP parser refuses by address, with Redis too, and answers 429 past the limit; a page is not counted', async () => {
    // A Redis of its own: the address's count is shared by every server on the same Redis.
    const redis: PrivateRedis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    const envs: Record<string, string>[] = [{ RATE_LIMIT_PER_MINUTE: '3' }, { RATE_LIMIT_PER_MINUTE: '3', REDIS_URL: redis.url }];
    for (const env of envs) {
      const t = await server(env);
      if (env.REDIS_URL) await waitFor('/readyz ready with Redis up', async () => (await t.api('GET', '/readyz')).body?.status === 'ready');
      const padded = { token: null, headers: { 'x-padding': 'p'.repeat(100_000) } };
      // Not an address that is counted: no RateLimit-* and no count.
      const page = await t.api('GET', '/boards', padded);
      expectEnvelope(page, 431, 'headers_too_large');
      expect(page.headers.get('ratelimit-limit')).toBeNull();
      const remaining: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await t.api('GET', '/v1/me', padded);
        expectEnvelope(res, 431, 'headers_too_large');
        remaining.push(expectRateHeaders(res, 3).remaining);
      }
      expect(remaining).toEqual([2, 1, 0]);
      const limited = await t.api('GET', '/v1/me', padded);
      expectEnvelope(limited, 429, 'rate_limited');
      expectRateHeaders(limited, 3);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The same address, now a well-formed request without a token: the same count.
      expectEnvelope(await t.api('GET', '/v1/me', { token: null }), 429, 'rate_limited');
    }
  });

  it('shares one count between two processes through Redis', { timeout: 90_000 }, async () => {
    const a = await server({ RATE_LIMIT_PER_MINUTE: '10', REDIS_URL });
    // The second is a process of its own: nothing but Redis can carry the count across.
    const child = await spawnTack({ RATE_LIMIT_PER_MINUTE: '10', REDIS_URL, DATABASE_URL: a.database!.url, TACK_BOOTSTRAP_TOKEN: a.token });
    cleanups.push(() => child.kill('SIGKILL'));
    const b = { api: apiClient(child.url, a.token) };
    const tokenId = (await a.database!.query('select id from tokens'))[0].id as string;
    const redis = new Redis(REDIS_URL);
    cleanups.push(async () => {
      await redis.del(`tack:rl:tok:${tokenId}`);
      redis.disconnect();
    });
    await waitFor('both servers to reach Redis', async () => (await a.api('GET', '/readyz')).body?.status === 'ready' && (await b.api('GET', '/readyz')).body?.status === 'ready');
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await (i % 2 === 0 ? a : b).api('GET', '/v1/me');
      expect(res.status).toBe(200);
      remaining.push(expectRateHeaders(res, 10).remaining);
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expectEnvelope(await a.api('GET', '/v1/me'), 429, 'rate_limited');
    expectEnvelope(await b.api('GET', '/v1/me'), 429, 'rate_limited');
    const ttl = await redis.pttl(`tack:rl:tok:${tokenId}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('keeps answering from memory while Redis is down, and /readyz says degraded', { timeout: 90_000 }, async () => {
    const redis: PrivateRedis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    const t = await server({ RATE_LIMIT_PER_MINUTE: '1000', REDIS_URL: redis.url });
    await waitFor('/readyz ready with Redis up', async () => (await t.api('GET', '/readyz')).body?.status === 'ready');
    expectRateHeaders(await t.api('GET', '/v1/me'), 1000);

    await redis.stop();
    // The API still serves, so readiness stays 200 and says it is degraded (contract section 2).
    const down = await waitFor('/readyz degraded with Redis down', async () => {
      const r = await t.api('GET', '/readyz');
      return r.body?.status === 'degraded' ? r : undefined;
    });
    expect(down.status).toBe(200);
    expect(down.body.checks).toEqual({ database: 'ok', redis: 'down' });
    for (let i = 0; i < 5; i++) {
      const res = await t.api('GET', '/v1/me');
      expect(res.status).toBe(200);
      expectRateHeaders(res, 1000);
    }
    const write = await t.api('POST', '/v1/tokens', { body: { name: 'while redis is down' } });
    expect(write.status).toBe(201);

    await redis.start();
    await waitFor('/readyz ready with Redis back', async () => (await t.api('GET', '/readyz')).body?.status === 'ready', { timeoutMs: 30_000 });
    expect((await t.api('GET', '/v1/me')).status).toBe(200);
  });
});
