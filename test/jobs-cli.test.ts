import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, eventually, remindersPerTodo, slackEnv } from './helpers/jobs.js';
import { dropPrefix } from './helpers/redis-server.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { REDIS_URL } from './helpers/services.js';
import { runTack, TACK_BIN } from './helpers/tack.js';

/** `tack worker` as an operator runs it: the jobs without the API, stopped by SIGTERM. */
let fake: FakeSlack;
let t: TestServer;

beforeAll(async () => {
  await ensureCliBuilt();
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake));
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await t?.close();
  await fake?.close();
  // `tack worker` uses the production prefix; only this test runs one against the test Redis.
  await dropPrefix(REDIS_URL, 'tack:jobs');
});

describe('tack worker', () => {
  it('refuses to start without REDIS_URL, saying why', async () => {
    const res = await runTack(['worker'], { env: { DATABASE_URL: t.database!.url, ...slackEnv(fake) } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('tack worker needs REDIS_URL');
  });

  it('sends what is due, and stops cleanly on SIGTERM', async () => {
    const uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
    // With REMINDER_HOUR=0 a todo due today is due at once (and still tomorrow, caught up).
    const todo = await addTodo(t, uma, { title: 'From the worker', due_on: new Date().toISOString().slice(0, 10) });
    const env = { PATH: process.env.PATH ?? '', DATABASE_URL: t.database!.url, REDIS_URL, ...slackEnv(fake), REMINDER_HOUR: '0', LOG_LEVEL: 'warn' };
    const child = spawn(process.execPath, [TACK_BIN, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines = createInterface({ input: child.stdout! });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('tack worker did not start')), 20_000);
        lines.on('line', (line) => {
          if (line.includes('worker running')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      await eventually(() => remindersPerTodo(fake.calls).get(todo.id) === 1, 90_000, 'the reminder from tack worker');
    } finally {
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    }
  }, 120_000);
});
