import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateRedis } from './helpers/redis-server.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * A hung Redis: the private redis-server is stopped with SIGSTOP, so its socket stays open
 * and the client still says "ready" while nothing is answered. One request may wait out the
 * rate limiter's short timeout; after that, counts go to memory at memory's speed, /readyz
 * says "degraded" with 200, and once Redis answers again a background probe brings the
 * shared count back. Never the shared Redis: only this test's own process is stalled.
 */

let redis: PrivateRedis;
let t: TestServer;
let probe: Redis;
let rateKey: string;

beforeAll(async () => {
  redis = await PrivateRedis.start();
  t = await startTestServer({ REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '100000' });
  probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  const tokenId = (await t.database!.query('select id from tokens'))[0].id as string;
  rateKey = `tack:rl:tok:${tokenId}`;
});
afterAll(async () => {
  redis?.resume();
  probe?.disconnect();
  await t?.close();
  await redis?.stop();
});

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

describe('a stalled Redis', () => {
  it('costs one request a short wait, then rate limits count in memory; the shared count returns after', { timeout: 90_000 }, async () => {
    await waitFor('/readyz ready with Redis up', async () => (await t.api('GET', '/readyz', { token: null })).body?.status === 'ready');
    expect((await t.api('GET', '/v1/me')).status).toBe(200);
    const sharedBefore = Number(await probe.get(rateKey));
    expect(sharedBefore).toBeGreaterThan(0);

    redis.pause();
    // The first request may wait for the limiter's timeout (250 ms), never a second.
    const first = await timed(() => t.api('GET', '/v1/me'));
    expect(first.value.status).toBe(200);
    // Then 20 requests in a row: with a timeout per request (the bug) they took 20 s.
    const rest = await timed(async () => {
      for (let i = 0; i < 20; i++) {
        const res = await t.api('GET', '/v1/me');
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBe('100000');
      }
    });
    expect(rest.ms).toBeLessThan(4_000);

    // The API serves, so /readyz stays 200 and says so.
    const ready = await t.api('GET', '/readyz', { token: null });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'degraded', checks: { database: 'ok', redis: 'down' } });

    redis.resume();
    // The stalled commands are answered now; the count only grows again through a probe's reopening.
    await waitFor('rate limits shared through Redis again', async () => {
      const before = Number(await probe.get(rateKey));
      await t.api('GET', '/v1/me');
      return Number(await probe.get(rateKey)) > before;
    });
    expect((await t.api('GET', '/readyz', { token: null })).body.status).toBe('ready');
  });
});
