import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendTodoReminders } from '../jobs/todo-reminders.js';
import { slackWebClient } from '../src/slack/web-client.js';
import { dmChannelOf, startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { addMember, addTodo, jobDeps, remindersIn, slackEnv, todosListedIn, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * Slack's rate limits as Slack applies them, against the fake: a Retry-After holds the whole
 * workspace (every worker, every later sweep) until it passes, and the daily reminders do
 * not spend a Tier 3 call (conversations.open, about 50 a minute) per member and day.
 */

let fake: FakeSlack;
let t: TestServer;
let now = new Date('2026-10-01T00:00:00Z');
const at = (iso: string) => {
  now = new Date(iso);
};

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.clear();
  fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
  fake.handle('conversations.open', (call) => fake.answerAsSlack(call));
});

/** A worker of its own: its own Web API client, the same database. */
const worker = () => jobDeps(t, () => now, { slack: slackWebClient(t.config, jobDeps(t, () => now).log) });

describe("Slack's Retry-After", () => {
  it('holds every later sweep, in any worker, until it has passed', async () => {
    const ada = await addMember(t, { name: 'Ada', slack_user_id: 'U0ADA', tz: 'UTC' });
    const bo = await addMember(t, { name: 'Bo', slack_user_id: 'U0BO', tz: 'UTC' });
    at('2026-10-01T08:00:00Z');
    const first = await addTodo(t, ada, { title: 'Before the limit', due_on: '2026-10-01' });
    fake.handleOnce('chat.postMessage', { status: 429, headers: { 'retry-after': '120' }, body: { ok: false, error: 'ratelimited' } });
    at('2026-10-01T09:00:00Z');
    expect(await sendTodoReminders(worker())).toEqual({ sent: 0, skipped: 1, failed: 0 });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);

    // Another worker's sweep, 30 s later, with a reminder newly due: it waits too.
    at('2026-10-01T09:00:30Z');
    const second = await addTodo(t, bo, { title: 'During the limit', due_on: '2026-10-01' });
    expect(await sendTodoReminders(worker())).toEqual({ sent: 0, skipped: 1, failed: 0 });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(fake.callsTo('conversations.open').map((c) => c.body.users)).toEqual(['U0ADA']);

    // Once it has passed, both go out, once each.
    at('2026-10-01T09:02:00Z');
    expect(await sendTodoReminders(worker())).toEqual({ sent: 2, skipped: 0, failed: 0 });
    expect(todosListedIn(fake.messages(dmChannelOf('U0ADA')).at(-1)!.blocks)).toEqual([first.id]);
    expect(todosListedIn(fake.messages(dmChannelOf('U0BO')).at(-1)!.blocks)).toEqual([second.id]);
    for (const [m, x] of [[ada, first], [bo, second]] as const) await t.api('POST', `/v1/todos/${x.id}/done`, { token: m.token });
  });
});

describe('the daily reminders of many members', () => {
  it('open each DM once: on the second day all 60 go out in one sweep, without conversations.open', async () => {
    // Tier 3: 50 conversations.open a minute, then 429 for the rest of the minute.
    let opened = 0;
    fake.handle('conversations.open', (call: RecordedCall) => {
      if (++opened > 50) return { status: 429, headers: { 'retry-after': '60' }, body: { ok: false, error: 'ratelimited' } };
      return fake.answerAsSlack(call);
    });
    const members: TestMember[] = [];
    for (let i = 0; i < 60; i++) members.push(await addMember(t, { name: `Many ${i}`, slack_user_id: `U0MANY${i}`, tz: 'UTC' }));
    at('2026-10-02T08:00:00Z');
    for (const m of members) {
      await addTodo(t, m, { title: 'Day one', due_on: '2026-10-02' });
      await addTodo(t, m, { title: 'Day two', due_on: '2026-10-03' });
    }

    // The first day opens every DM, at Slack's pace: 50 this minute, the rest the next.
    at('2026-10-02T09:00:00Z');
    const day1 = await sendTodoReminders(worker());
    // A few lanes had opened their DM when the 429 stopped the sweep: held, with their DM kept.
    expect(day1.sent).toBeGreaterThan(40);
    expect(day1.sent).toBeLessThanOrEqual(50);
    at('2026-10-02T09:01:00Z');
    opened = 0;
    expect(await sendTodoReminders(worker())).toMatchObject({ sent: 60 - day1.sent, failed: 0 });
    expect(remindersIn(fake.calls)).toHaveLength(60);

    // The second day: every DM is known, so all 60 go out in one sweep.
    fake.clear();
    opened = 0;
    at('2026-10-03T09:00:00Z');
    expect(await sendTodoReminders(worker())).toEqual({ sent: 60, skipped: 0, failed: 0 });
    expect(fake.callsTo('conversations.open')).toEqual([]);
    const channels = remindersIn(fake.calls).map((c) => c.body.channel as string);
    expect(channels.sort()).toEqual(members.map((_, i) => dmChannelOf(`U0MANY${i}`)).sort());
  });

  it('opens a DM again when a post into the kept one fails', async () => {
    const cy = await addMember(t, { name: 'Cy', slack_user_id: 'U0CY', tz: 'UTC' });
    at('2026-10-04T08:00:00Z');
    await addTodo(t, cy, { title: 'Kept DM', due_on: '2026-10-04' });
    await addTodo(t, cy, { title: 'Reopened DM', due_on: '2026-10-05' });
    at('2026-10-04T09:00:00Z');
    expect(await sendTodoReminders(worker())).toMatchObject({ sent: 1 });
    expect(fake.callsTo('conversations.open')).toHaveLength(1);
    // The next day Slack refuses the kept channel once: the next attempt opens the DM again.
    fake.clear();
    fake.handleOnce('chat.postMessage', { body: { ok: false, error: 'channel_not_found' } });
    at('2026-10-05T09:00:00Z');
    expect(await sendTodoReminders(worker())).toMatchObject({ sent: 0, failed: 1 });
    expect(fake.callsTo('conversations.open')).toEqual([]);
    at('2026-10-05T09:10:00Z');
    expect(await sendTodoReminders(worker())).toMatchObject({ sent: 1, failed: 0 });
    expect(fake.callsTo('conversations.open').map((c) => c.body.users)).toEqual(['U0CY']);
  });
});
