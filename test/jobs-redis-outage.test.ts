import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, eventually, remindersPerTodo, slackEnv, type TestMember, todosListedIn } from './helpers/jobs.js';
import { PrivateRedis } from './helpers/redis-server.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * Redis goes away under a running server (a private redis-server, killed, then started
 * again empty): /v1 keeps answering with rate limits in memory (and says so in the log),
 * and the BullMQ jobs resume by themselves once Redis is back.
 */

let redis: PrivateRedis;
let fake: FakeSlack;
let t: TestServer;
let uma: TestMember;
const now = new Date('2026-03-18T12:00:00Z');
const lines: string[] = [];
const log = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  }),
);

beforeAll(async () => {
  redis = await PrivateRedis.start();
  fake = await startFakeSlack();
  t = await startTestServer({ ...slackEnv(fake), REDIS_URL: redis.url }, { clock: () => now, log, jobs: { prefix: `tack-test-${randomBytes(4).toString('hex')}`, everyMs: 200 } });
  uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
  await redis?.stop();
});

describe('a Redis outage', () => {
  it('leaves /v1 serving, and the jobs resume when Redis returns', async () => {
    const before = await addTodo(t, uma, { title: 'Before the outage', due_on: '2026-03-18' });
    await eventually(() => remindersPerTodo(fake.calls).get(before.id) === 1, 15_000, 'the first reminder');

    const seen = lines.length;
    await redis.stop();
    for (let i = 0; i < 5; i++) {
      const me = await t.api('GET', '/v1/me');
      expect(me.status).toBe(200);
      expect(me.headers.get('ratelimit-limit')).toBe('100000');
    }
    // When each reminder went out, to tell a run during the outage from one after it.
    const postedAt = new Map<string, number>();
    // A todo due on a day whose reminder already went out joins that message (chat.update).
    for (const method of ['chat.postMessage', 'chat.update']) {
      fake.handle(method, (call) => {
        for (const id of todosListedIn(call.body.blocks)) if (!postedAt.has(id)) postedAt.set(id, Date.now());
        return fake.answerAsSlack(call);
      });
    }
    const during = await addTodo(t, uma, { title: 'During the outage', due_on: '2026-03-18' });
    const degraded = await t.api('GET', '/readyz', { token: null });
    expect([degraded.status, degraded.body.status]).toEqual([200, 'degraded']);
    expect(lines.some((l) => l.includes("rate limits fall back to this process's memory"))).toBe(true);
    await eventually(() => lines.slice(seen).some((l) => l.includes('jobs: Redis connection error')), 10_000, 'the jobs to notice Redis is gone');
    expect(remindersPerTodo(fake.calls).get(during.id)).toBeUndefined();

    // Back, and empty (nothing was saved): the schedulers are upserted again on reconnect.
    const returned = Date.now();
    await redis.start();
    await eventually(() => remindersPerTodo(fake.calls).get(during.id) === 1, 30_000, 'the reminder after Redis returned');
    await eventually(async () => (await t.api('GET', '/readyz', { token: null })).body?.status === 'ready', 10_000, 'readyz');
    expect(remindersPerTodo(fake.calls).get(before.id)).toBe(1);
    // Sent by a run after Redis returned, not during the outage.
    expect(postedAt.get(during.id)).toBeGreaterThanOrEqual(returned);
    expect(lines.some((l) => l.includes('jobs: Redis connection restored'))).toBe(true);
  });

  it('does not hold up shutdown while Redis is down', async () => {
    const seen = lines.length;
    await redis.stop();
    await eventually(() => lines.slice(seen).some((l) => l.includes('jobs: Redis connection error')), 10_000, 'the jobs to notice Redis is gone');
    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
