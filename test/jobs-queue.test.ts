import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { JOB_NAMES } from '../src/domain/jobs.js';
import { startWorker, WorkerConfigError, type RunningWorker } from '../src/worker.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, eventually, remindersPerTodo, slackEnv, type TestMember } from './helpers/jobs.js';
import { dropPrefix } from './helpers/redis-server.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { REDIS_URL } from './helpers/services.js';

/**
 * The jobs on BullMQ against the real Redis (each test with a queue prefix of its own),
 * and on the in-process timer without Redis: scheduled runs send what is due, and two
 * workers on the same schedule send each reminder once.
 */

let fake: FakeSlack;
let t: TestServer;
let uma: TestMember;
let ravi: TestMember;
const now = new Date('2026-03-16T12:00:00Z');
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const prefixes: string[] = [];

function prefix(): string {
  const p = `tack-test-${randomBytes(4).toString('hex')}`;
  prefixes.push(p);
  return p;
}

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
  ravi = await addMember(t, { name: 'Ravi', slack_user_id: 'U0RAVI', tz: 'Asia/Kolkata' });
});
beforeEach(() => fake.clear());
afterAll(async () => {
  await t?.close();
  await fake?.close();
  for (const p of prefixes) await dropPrefix(REDIS_URL, p);
});

function workerConfig() {
  return loadConfig({ DATABASE_URL: t.database!.url, REDIS_URL, ...slackEnv(fake), LOG_LEVEL: 'silent' });
}

describe('BullMQ workers', () => {
  it('two workers on one schedule send every reminder once, with one scheduler per job', async () => {
    const todos: { id: string }[] = [];
    for (let i = 0; i < 20; i++) todos.push(await addTodo(t, i % 2 ? uma : ravi, { title: `Scheduled ${i}`, due_on: '2026-03-16' }));
    const p = prefix();
    const workers: RunningWorker[] = [];
    try {
      for (let i = 0; i < 2; i++) workers.push(await startWorker(workerConfig(), { prefix: p, everyMs: 200, log, clock: () => now }));
      expect(workers.map((w) => w.jobs.mode)).toEqual(['bullmq', 'bullmq']);
      await eventually(() => todos.every((x) => remindersPerTodo(fake.calls).get(x.id) === 1), 15_000, 'all 20 reminders');

      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      try {
        // A few more scheduled runs, counted as BullMQ records them: nothing more goes out.
        const reminders = new Queue('todo-reminders', { connection: redis, prefix: p });
        const completed = async () => (await reminders.getJobCounts('completed')).completed ?? 0;
        const runsSoFar = await completed();
        await eventually(async () => (await completed()) >= runsSoFar + 3, 15_000, 'three more scheduled runs');
        await reminders.close();
        const counts = remindersPerTodo(fake.calls);
        expect(todos.map((x) => counts.get(x.id))).toEqual(todos.map(() => 1));

        for (const name of JOB_NAMES) {
          const queue = new Queue(name, { connection: redis, prefix: p });
          const schedulers = await queue.getJobSchedulers();
          expect(schedulers.map((s) => [s.key, s.every])).toEqual([[name, 200]]);
          const done = await queue.getCompleted();
          expect(done.length).toBeGreaterThan(0);
          await queue.close();
        }
      } finally {
        redis.disconnect();
      }
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('closes gracefully: a run in progress finishes before the worker stops', async () => {
    // A member of its own: their day's reminder is not out yet, so this run posts it.
    const sol = await addMember(t, { name: 'Sol', slack_user_id: 'U0SOL', tz: 'UTC' });
    const todo = await addTodo(t, sol, { title: 'Slow Slack', due_on: '2026-03-16' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.handleOnce('conversations.open', async (call) => {
      await gate;
      return fake.answerAsSlack(call);
    });
    const worker = await startWorker(workerConfig(), { prefix: prefix(), everyMs: 200, log, clock: () => now });
    // What happened in which order: the run's post and record, and the end of close().
    const order: string[] = [];
    fake.handle('chat.postMessage', (call) => {
      order.push('posted');
      return fake.answerAsSlack(call);
    });
    try {
      await fake.waitFor((c) => c.method === 'conversations.open' && c.body.users === 'U0SOL', 10_000);
      const closed = worker.close().then(() => void order.push('closed'));
      release();
      await closed;
      // The run was let go only once close() had begun; it still posted before close() ended,
      // and its record reached the database (closed by close() after the run).
      expect(order).toEqual(['posted', 'closed']);
      expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(1);
      const row = await t.server.db.db.selectFrom('slack_posts').select('state').where('subject_id', '=', todo.id).executeTakeFirstOrThrow();
      expect(row.state).toBe('sent');
    } finally {
      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
      release();
      await worker.close();
    }
  });

  // Without a Slack bot token it starts and delivers webhooks only (test/webhook-wakeups.test.ts).
  it('refuses to start without REDIS_URL', async () => {
    await expect(startWorker(loadConfig({ DATABASE_URL: t.database!.url, ...slackEnv(fake) }))).rejects.toBeInstanceOf(WorkerConfigError);
  });
});

describe('tack serve runs the jobs itself', () => {
  it('on an in-process timer without Redis', async () => {
    const server = await startTestServer({ ...slackEnv(fake), DATABASE_URL: t.database!.url }, { clock: () => now, jobs: { everyMs: 200 } });
    try {
      expect(server.server.jobs?.mode).toBe('in-process');
      const todo = await addTodo(t, uma, { title: 'In-process timer', due_on: '2026-03-16' });
      await eventually(() => remindersPerTodo(fake.calls).get(todo.id) === 1, 10_000, 'the reminder');
    } finally {
      await server.close();
    }
  });

  it('on BullMQ workers with REDIS_URL, and not at all with jobs off', async () => {
    const server = await startTestServer({ ...slackEnv(fake), DATABASE_URL: t.database!.url, REDIS_URL }, { clock: () => now, jobs: { prefix: prefix(), everyMs: 200 } });
    try {
      expect(server.server.jobs?.mode).toBe('bullmq');
      const todo = await addTodo(t, uma, { title: 'BullMQ in serve', due_on: '2026-03-16' });
      await eventually(() => remindersPerTodo(fake.calls).get(todo.id) === 1, 10_000, 'the reminder');
    } finally {
      await server.close();
    }
    const quiet = await startTestServer({ ...slackEnv(fake), DATABASE_URL: t.database!.url }, { clock: () => now, jobs: false });
    try {
      expect(quiet.server.jobs).toBeUndefined();
      const todo = await addTodo(t, uma, { title: 'Nobody sweeps', due_on: '2026-03-16' });
      // No timer and no worker (jobs is undefined above); runJob still works there, and it is
      // the one that sends the reminder: nothing had claimed it before.
      expect((await quiet.api('POST', '/v1/jobs/todo-reminders/run', { token: t.token })).body).toMatchObject({ sent: 1 });
      expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(1);
    } finally {
      await quiet.close();
    }
  });
});
