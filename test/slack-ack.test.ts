import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkQueue } from '../src/slack/work-queue.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * The ack of a slash command never waits for the shared database pool: the delivery is
 * recorded on the Slack face's own small pool, so with every connection of the shared pool
 * held (earlier commands' reads, a burst on /v1) the ack still comes at once, recorded.
 */

const SECRET = 'ack-secret';
const USER = 'U0ACK';
let fake: FakeSlack;
let t: TestServer;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl });
  const me = await t.api('GET', '/v1/me');
  expect((await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: USER } })).status).toBe(200);
  expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M1', name: 'First' } })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('the Slack ack', () => {
  it('is recorded and answered while every connection of the shared pool is busy', async () => {
    const db = t.server.db.db;
    const pool = t.server.db.pool!;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: Promise<void>[] = [];
    let holding = 0;
    // Every connection the pool may open (one of them is the auth notifications' listener).
    for (let i = 0; i < 9; i++) held.push(db.connection().execute(async () => void (holding++, await released)));
    try {
      await expect.poll(() => holding).toBe(9);
      expect([pool.totalCount, pool.idleCount]).toEqual([pool.options.max, 0]);
      const responseUrl = fake.responseUrl();
      const ack = await slackClient(t.url, SECRET).command({ command: '/milestone', text: 'M1 status', user_id: USER, response_url: responseUrl });
      expect(ack.status).toBe(200);
      expect(ack.text).toBe('');
      // Recorded before the ack, on its own connection: the shared pool is still all held.
      expect(await t.database!.query(`select kind from slack_deliveries`)).toEqual([{ kind: 'command' }]);
      // The command's own work is what waits for the shared pool, after the ack.
      expect([holding, pool.idleCount]).toEqual([9, 0]);
      release();
      await Promise.all(held);
      const reply = await fake.waitFor((c) => c.path === new URL(responseUrl).pathname);
      expect(JSON.stringify(reply.body)).toContain('First');
    } finally {
      release();
      await Promise.all(held);
    }
  });
});

describe('WorkQueue', () => {
  it('runs a few jobs at a time and says full once its waiting line is', async () => {
    const queue = new WorkQueue(2, 1);
    const gates: (() => void)[] = [];
    let running = 0;
    let most = 0;
    const job = () =>
      queue.run(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
      });
    const jobs = [job(), job()];
    expect(queue.full).toBe(false);
    jobs.push(job());
    expect(queue.full).toBe(true);
    await expect.poll(() => gates.length).toBe(2);
    gates.shift()!();
    await expect.poll(() => gates.length).toBe(2);
    expect(queue.full).toBe(false);
    while (gates.length > 0) gates.shift()!();
    await expect.poll(() => gates.length + running).toBe(0);
    await Promise.all(jobs);
    expect(most).toBe(2);
  });
});
