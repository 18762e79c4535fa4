import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendTodoReminders } from '../jobs/todo-reminders.js';
import { dmChannelOf, startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, jobDeps, remindersIn, remindersPerTodo, slackEnv, todosListedIn, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * Reminder digests: one direct message per member and local day with that day's due todos
 * (20 listed, then how many more), each with Done and Snooze; once per todo and due date;
 * a snoozed todo reminded again on its new date; each member's own reminder hour.
 */

let fake: FakeSlack;
let t: TestServer;
let uma: TestMember;
let now = new Date('2026-09-01T00:00:00Z');
const at = (iso: string) => {
  now = new Date(iso);
};

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clear());

const sweep = () => sendTodoReminders(jobDeps(t, () => now));
const dm = dmChannelOf('U0UMA');

describe('the daily reminder', () => {
  it('lists 20 of 25 due todos (the most urgent first) in one message, says how many more, and each has Done and Snooze', async () => {
    at('2026-09-01T08:00:00Z');
    const todos: { id: string }[] = [];
    for (let i = 0; i < 25; i++) todos.push(await addTodo(t, uma, { title: `Task ${String(i).padStart(2, '0')}`, due_on: '2026-09-01', priority: i === 24 ? 'urgent' : 'medium' }));
    at('2026-09-01T09:00:00Z');
    expect(await sweep()).toEqual({ sent: 1, skipped: 0, failed: 0 });
    const posts = remindersIn(fake.calls);
    expect(posts).toHaveLength(1);
    const [post] = posts;
    expect(post!.body.channel).toBe(dm);
    expect(post!.body.metadata).toEqual({ event_type: 'tack_digest', event_payload: { member_id: uma.id, date: '2026-09-01' } });
    const listed = todosListedIn(post!.body.blocks);
    expect(listed).toHaveLength(20);
    expect(listed[0]).toBe(todos[24]!.id);
    expect(post!.body.blocks.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(post!.body.blocks)).toContain('…and 5 more.');
    for (const id of listed) {
      const actions = post!.body.blocks.find((b: any) => b.block_id === `todo:${id}:snooze`);
      expect(actions.elements.map((e: any) => [e.action_id, e.value])).toEqual([
        ['todo_snooze_tomorrow', id],
        ['todo_snooze_week', id],
      ]);
    }
    // Every one of the 25 is reminded once for this date, listed or not: no second message.
    const rows = await t.server.db.db.selectFrom('slack_posts').select(['subject_id', 'state']).where('kind', '=', 'todo_reminder').where('period', '=', '2026-09-01').execute();
    expect(rows).toHaveLength(25);
    expect(rows.every((r) => r.state === 'sent')).toBe(true);
    at('2026-09-01T15:00:00Z');
    expect(await sweep()).toEqual({ sent: 0, skipped: 0, failed: 0 });
    expect(remindersIn(fake.calls)).toHaveLength(1);
    // Close them all, so the next tests start from an empty day.
    for (const x of todos) await t.api('POST', `/v1/todos/${x.id}/done`, { token: uma.token });
  });

  it('adds a todo made later that day to the same message, which stays the only one', async () => {
    at('2026-09-02T08:00:00Z');
    const first = await addTodo(t, uma, { title: 'Morning task', due_on: '2026-09-02' });
    at('2026-09-02T09:00:00Z');
    await sweep();
    expect(remindersIn(fake.calls)).toHaveLength(1);
    const { ts } = fake.messages(dm).at(-1)!;
    at('2026-09-02T14:00:00Z');
    const late = await addTodo(t, uma, { title: 'Afternoon task', due_on: '2026-09-02' });
    expect(await sweep()).toMatchObject({ sent: 1, failed: 0 });
    expect(remindersIn(fake.calls)).toHaveLength(1);
    const update = fake.callsTo('chat.update').at(-1)!;
    expect(update.body).toMatchObject({ channel: dm, ts });
    expect(update.body.text).toBe('Reminder: 2 todos due today: "Afternoon task", "Morning task"');
    expect(todosListedIn(update.body.blocks).sort()).toEqual([first.id, late.id].sort());
    await sweep();
    expect(fake.callsTo('chat.update')).toHaveLength(1);
    for (const x of [first, late]) await t.api('POST', `/v1/todos/${x.id}/done`, { token: uma.token });
  });

  it('Snooze moves the todo to tomorrow through updateTodo, shows it snoozed, and the new date gets its own reminder', async () => {
    at('2026-09-03T08:00:00Z');
    const todo = await addTodo(t, uma, { title: 'Snooze <me>', due_on: '2026-09-03' });
    const other = await addTodo(t, uma, { title: 'Stay', due_on: '2026-09-03' });
    at('2026-09-03T09:00:00Z');
    await sweep();
    const message = fake.messages(dm).at(-1)!;
    expect(todosListedIn(message.blocks).sort()).toEqual([todo.id, other.id].sort());

    at('2026-09-03T10:00:00Z');
    const slack = slackClient(t.url, 'jobs-secret');
    const res = await slack.click(
      { action_id: 'todo_snooze_tomorrow', value: todo.id, block_id: `todo:${todo.id}:snooze`, response_url: fake.responseUrl(), user_id: 'U0UMA', channel_id: dm, message: { ts: message.ts, text: message.text, blocks: message.blocks } },
      { timestamp: Math.floor(now.getTime() / 1000) },
    );
    expect(res.status).toBe(200);
    const update = await fake.waitFor((c) => c.method === 'chat.update');
    expect(update.body.ts).toBe(message.ts);
    const json = JSON.stringify(update.body.blocks);
    expect(json).toContain(':zzz: *Snooze &lt;me&gt;* snoozed until 2026-09-04');
    expect(json).not.toContain(`"block_id":"todo:${todo.id}:snooze"`);
    expect(todosListedIn(update.body.blocks)).toEqual([other.id]);
    const snoozed = (await t.api('GET', '/v1/todos?done=false', { token: uma.token })).body.data.find((x: any) => x.id === todo.id);
    expect(snoozed.due_on).toBe('2026-09-04');
    // The Home tab is refreshed after a snooze.
    await fake.waitFor((c) => c.method === 'views.publish' && c.body.user_id === 'U0UMA');

    // Not again today; tomorrow at the hour, a new message lists it.
    at('2026-09-03T20:00:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(1);
    at('2026-09-04T09:00:00Z');
    await t.api('POST', `/v1/todos/${other.id}/done`, { token: uma.token });
    await sweep();
    const posts = remindersIn(fake.calls);
    expect(posts).toHaveLength(2);
    expect(posts[1]!.body.metadata.event_payload.date).toBe('2026-09-04');
    expect(todosListedIn(posts[1]!.body.blocks)).toEqual([todo.id]);
    await t.api('POST', `/v1/todos/${todo.id}/done`, { token: uma.token });
  });

  it("come at each member's own reminder_hour, in their time zone", async () => {
    const early = await addMember(t, { name: 'Early', slack_user_id: 'U0EARLY', tz: 'Europe/Berlin' });
    expect((await t.api('PATCH', `/v1/members/${early.id}`, { token: early.token, body: { reminder_hour: 6 } })).body.reminder_hour).toBe(6);
    expect((await t.api('PATCH', `/v1/members/${early.id}`, { token: early.token, body: { reminder_hour: 24 } })).status).toBe(422);
    at('2026-09-05T00:00:00Z');
    const todo = await addTodo(t, early, { title: 'Early bird', due_on: '2026-09-05' });
    // 06:00 in Berlin (summer time) is 04:00Z.
    at('2026-09-05T03:59:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBeUndefined();
    at('2026-09-05T04:00:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(1);
  });

  it('a todo re-dated into a day it was already reminded on is listed once (not "3 todos" for 2)', async () => {
    at('2026-09-06T08:00:00Z');
    // Due yesterday and never reminded: caught up in today's message, with today's own todo.
    const late = await addTodo(t, uma, { title: 'Left over', due_on: '2026-09-05' });
    const today = await addTodo(t, uma, { title: 'Due today', due_on: '2026-09-06' });
    at('2026-09-06T09:00:00Z');
    expect(await sweep()).toMatchObject({ sent: 1, failed: 0 });
    const posted = remindersIn(fake.calls).at(-1)!;
    expect(todosListedIn(posted.body.blocks).sort()).toEqual([late.id, today.id].sort());
    // Re-dated to today: a reminder of its own for the new date, which joins today's message.
    at('2026-09-06T10:00:00Z');
    expect((await t.api('PATCH', `/v1/todos/${late.id}`, { token: uma.token, body: { due_on: '2026-09-06' } })).status).toBe(200);
    expect(await sweep()).toMatchObject({ sent: 1, failed: 0 });
    const update = fake.callsTo('chat.update').at(-1)!;
    expect(update.body.ts).toBe(posted.body.ts ?? fake.messages(dm).at(-1)!.ts);
    expect(update.body.text).toBe('Reminder: 2 todos due today: "Due today", "Left over"');
    expect(update.body.blocks[0].block_id).toBe('tack_reminder:2');
    expect(todosListedIn(update.body.blocks).sort()).toEqual([late.id, today.id].sort());
    expect(JSON.stringify(update.body.blocks)).not.toContain('snoozed');
    for (const x of [late, today]) await t.api('POST', `/v1/todos/${x.id}/done`, { token: uma.token });
  });
});
