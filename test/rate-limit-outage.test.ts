import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../src/http/rate-limit.js';
import { connectRedis } from '../src/redis.js';
import { PrivateRedis } from './helpers/redis-server.js';
import { waitFor } from './helpers/wait.js';

/**
 * The rate limiter across a Redis outage (issue 27 item 19): every request is counted once
 * in the shared count. A count that timed out on a stalled Redis and was counted in memory
 * must not count again when Redis runs it on resuming, and what memory counted during the
 * outage is added to the shared count when Redis answers again, so the minute's limit still
 * holds after the outage. Only this test's own redis-server is stalled (SIGSTOP).
 */

const LIMIT = 60;
let redis: PrivateRedis;
let client: Redis;
let probe: Redis;

beforeAll(async () => {
  redis = await PrivateRedis.start();
  client = connectRedis(redis.url, pino({ level: 'silent' }));
  probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  await waitFor('the client to be ready', () => client.status === 'ready');
});
afterAll(async () => {
  redis?.resume();
  client?.disconnect();
  probe?.disconnect();
  await redis?.stop();
});

describe('counting across a Redis outage', () => {
  it('counts each request once in the shared count: none twice, none forgotten', { timeout: 60_000 }, async () => {
    const limiter = new RedisRateLimiter(client, LIMIT, pino({ level: 'silent' }), { prefix: 'outage:', retryAfterMs: 200 });
    let made = 0;
    const hit = async () => {
      made++;
      return limiter.hit('tok:caller');
    };
    for (let i = 0; i < 3; i++) expect((await hit()).remaining).toBe(LIMIT - made);
    expect(Number(await probe.get('outage:tok:caller'))).toBe(3);

    redis.pause();
    // The first waits out the limiter's timeout and is counted in memory; Redis still holds it, unanswered.
    await hit();
    expect(limiter.degraded).toBe(true);
    await hit();
    await hit();

    redis.resume();
    // Redis runs the stalled count now. A request after the retry delay starts the probe that closes the circuit.
    await waitFor('the circuit to close', async () => {
      await hit();
      return !limiter.degraded;
    }, { intervalMs: 100 });
    // Every request made so far is in the shared count once.
    await waitFor('the shared count to settle', async () => Number(await probe.get('outage:tok:caller')) === made, { timeoutMs: 5_000 }).catch(async (err: Error) => {
      throw new Error(`${err.message}: shared count ${await probe.get('outage:tok:caller')} for ${made} requests`);
    });
    const next = await hit();
    expect(next.remaining).toBe(LIMIT - made);
    expect(Number(await probe.get('outage:tok:caller'))).toBe(made);
    const ttl = await probe.pttl('outage:tok:caller');
    expect(ttl > 0 && ttl <= 60_000).toBe(true);
    limiter.close();
  });
});
