import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/domain/ids.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, eventually, remindersPerTodo, slackEnv } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * The embedded default: no Postgres server, no Redis. The jobs run on the in-process timer
 * against PGlite (one connection), and runJob runs outside any transaction of its own, so
 * nothing waits on the single connection.
 */
let fake: FakeSlack;
let t: TestServer;
let dir: string;
const now = new Date('2026-03-20T10:00:00Z');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tack-jobs-'));
  fake = await startFakeSlack();
  t = await startTestServer({ DATA_DIR: dir, ...slackEnv(fake) }, { clock: () => now, jobs: { everyMs: 200 } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('jobs on PGlite', () => {
  it('sends reminders and summaries from the in-process timer, and runs runJob', async () => {
    expect(t.server.jobs?.mode).toBe('in-process');
    const uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
    const todo = await addTodo(t, uma, { title: 'Embedded', due_on: '2026-03-20' });
    await eventually(() => remindersPerTodo(fake.calls).get(todo.id) === 1, 10_000, 'the reminder');

    const me = (await t.api('GET', '/v1/me')).body;
    expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M1', name: 'One' } })).status).toBe(201);
    await t.server.db.db
      .insertInto('slack_subscriptions')
      .values({ id: newId('sub'), org_id: me.org.id, milestone_ref: 'M1', channel_id: 'C0EMBED', cadence: 'daily', tz: 'UTC', created_by: me.member.id })
      .execute();
    await eventually(() => fake.calls.some((c) => c.method === 'chat.postMessage' && c.body.channel === 'C0EMBED'), 10_000, 'the summary');

    const run = await t.api('POST', '/v1/jobs/todo-reminders/run', { headers: { 'idempotency-key': 'embedded-run' } });
    expect(run.status).toBe(200);
    expect(run.body).toEqual({ sent: 0, skipped: 0, failed: 0 });
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(1);
  });
});
