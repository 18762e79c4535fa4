import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendTodoReminders } from '../jobs/todo-reminders.js';
import { LEASE_MS } from '../src/domain/slack-posts.js';
import { dmChannelOf, startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, jobDeps, remindersPerTodo, slackEnv, type TestMember, todosListedIn } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * A worker that dies mid-send, for real: the job runs in a child process that is killed
 * (SIGKILL) while the fake Slack holds its request open, once after claiming and before
 * posting, once after posting and before recording. The next run sends the first (never
 * skipped) and finds the second in the DM's history (never twice).
 */

const ROOT = join(import.meta.dirname, '..');
let fake: FakeSlack;
let t: TestServer;
let uma: TestMember;
let child: ChildProcess | undefined;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake));
  uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
});
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  child = undefined;
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

/** Starts the reminders job in a child process at `nowIso`. */
function runInChild(nowIso: string): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATABASE_URL: t.database!.url,
    ...slackEnv(fake),
    TACK_TEST_NOW: nowIso,
  };
  child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/run-job.ts'), 'todo-reminders'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return child;
}

async function crash(proc: ChildProcess): Promise<void> {
  proc.kill('SIGKILL');
  if (proc.exitCode === null && proc.signalCode === null) await once(proc, 'exit');
}

const never = () => new Promise<never>(() => {});

function row(todoId: string) {
  return t.server.db.db.selectFrom('slack_posts').selectAll().where('kind', '=', 'todo_reminder').where('subject_id', '=', todoId).executeTakeFirstOrThrow();
}

describe('a worker crash', () => {
  it('between claiming and posting: the lease runs out and the next run sends it once', async () => {
    const todo = await addTodo(t, uma, { title: 'Claimed, then crashed', due_on: '2026-03-10' });
    const crashAt = new Date('2026-03-10T09:00:00Z');
    fake.handleOnce('conversations.open', never);
    const proc = runInChild(crashAt.toISOString());
    await fake.waitFor((c) => c.method === 'conversations.open', 20_000);
    await crash(proc);
    expect(await row(todo.id)).toMatchObject({ state: 'sending', attempts: 1 });

    // Another worker while the lease lives: leaves it alone.
    const during = await sendTodoReminders(jobDeps(t, () => new Date(crashAt.getTime() + 60_000)));
    expect(during).toEqual({ sent: 0, skipped: 0, failed: 0 });
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBeUndefined();

    const after = await sendTodoReminders(jobDeps(t, () => new Date(crashAt.getTime() + LEASE_MS + 60_000)));
    expect(after).toEqual({ sent: 1, skipped: 0, failed: 0 });
    // The claim it took over may have posted: it looked in the DM first.
    expect(fake.callsTo('conversations.history').map((c) => c.body.channel)).toEqual([dmChannelOf('U0UMA')]);
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(1);
    expect(await row(todo.id)).toMatchObject({ state: 'sent', attempts: 2, channel_id: dmChannelOf('U0UMA') });
  });

  it('between posting and recording: the next run finds the message in the DM and does not post again', async () => {
    fake.clear();
    const todo = await addTodo(t, uma, { title: 'Posted, then crashed', due_on: '2026-03-11' });
    const crashAt = new Date('2026-03-11T09:00:00Z');
    // Slack takes the message, and the answer never reaches the worker.
    fake.handleOnce('chat.postMessage', (call) => {
      fake.answerAsSlack(call);
      return never();
    });
    const proc = runInChild(crashAt.toISOString());
    await fake.waitFor((c) => c.method === 'chat.postMessage', 20_000);
    await crash(proc);
    const posted = fake.messages(dmChannelOf('U0UMA')).filter((m) => todosListedIn(m.blocks).includes(todo.id));
    expect(posted).toHaveLength(1);
    expect(await row(todo.id)).toMatchObject({ state: 'sending', message_ts: null });

    const after = await sendTodoReminders(jobDeps(t, () => new Date(crashAt.getTime() + LEASE_MS + 60_000)));
    expect(after).toEqual({ sent: 1, skipped: 0, failed: 0 });
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(1);
    expect(fake.messages(dmChannelOf('U0UMA')).filter((m) => todosListedIn(m.blocks).includes(todo.id))).toHaveLength(1);
    expect(await row(todo.id)).toMatchObject({ state: 'sent', message_ts: posted[0]!.ts });

    const later = await sendTodoReminders(jobDeps(t, () => new Date(crashAt.getTime() + 2 * LEASE_MS)));
    expect(later).toEqual({ sent: 0, skipped: 0, failed: 0 });
  });
});
