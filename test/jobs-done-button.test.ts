import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendTodoReminders } from '../jobs/todo-reminders.js';
import { dmChannelOf, startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, eventually, jobDeps, remindersIn, slackEnv, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * The Done button of a reminder, end to end: the job posts the reminder into the owner's DM,
 * Slack sends the click (a signed block_actions payload whose message is that reminder), the
 * todo is completed through completeTodo (ticking its card's criterion), and the reminder is
 * replaced in place with chat.update (its response_url may long have expired).
 */

let fake: FakeSlack;
let t: TestServer;
let uma: TestMember;
let now = new Date('2026-03-12T08:00:00Z');

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('the Done button of a reminder', () => {
  it('completes the todo, ticks its criterion and replaces the reminder with its done state', async () => {
    await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' } });
    const card = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Login page', criteria: ['form'] } });
    const todo = await addTodo(t, uma, { title: 'Write the tests', due_on: '2026-03-12', card_id: card.body.id });
    now = new Date('2026-03-12T09:00:00Z');
    expect(await sendTodoReminders(jobDeps(t, () => now))).toMatchObject({ sent: 1 });
    const dm = dmChannelOf('U0UMA');
    const [reminder] = fake.messages(dm);
    expect(reminder).toBeDefined();
    expect(remindersIn(fake.calls)).toHaveLength(1);
    // As posted (the fake's message changes with chat.update).
    const posted = { text: reminder!.text, headingId: (reminder!.blocks as { block_id?: string }[])[0]!.block_id };
    expect(posted.text).toMatch(/^Reminder: "Write the tests"/);

    // Clicked hours later: the response_url Slack sends along is dead by then.
    now = new Date('2026-03-12T15:00:00Z');
    const response_url = fake.responseUrl();
    fake.handle('response', { status: 404, body: 'expired_url' });
    const slack = slackClient(t.url, 'jobs-secret');
    const res = await slack.click(
      { action_id: 'todo_done', value: todo.id, response_url, user_id: 'U0UMA', channel_id: dm, message: { ts: reminder!.ts, text: reminder!.text, blocks: reminder!.blocks } },
      { timestamp: Math.floor(now.getTime() / 1000) },
    );
    expect(res.status).toBe(200);

    const update = await fake.waitFor((c) => c.method === 'chat.update', 10_000);
    // The reminder keeps its own words for notifications; the todo's block says it is done.
    expect(update.body).toMatchObject({ channel: dm, ts: reminder!.ts, text: posted.text });
    const blocks = JSON.stringify(update.body.blocks);
    expect(blocks).toContain('~Write the tests~ done');
    expect(blocks).not.toContain('"action_id":"todo_done"');
    expect(update.body.blocks[0].block_id).toBe(posted.headingId);
    expect(posted.headingId).toBe('tack_reminder:1');
    expect(fake.messages(dm)[0]!.blocks).toEqual(update.body.blocks);
    expect(fake.callsTo('response')).toEqual([]);

    const done = await t.api('GET', '/v1/todos?done=true', { token: uma.token });
    expect(done.body.data.find((x: { id: string }) => x.id === todo.id)).toMatchObject({ done: true });
    const criteria = await t.api('GET', `/v1/cards/${card.body.id}/criteria`);
    expect(criteria.body.data.find((c: { todo_id?: string }) => c.todo_id === todo.id)).toMatchObject({ title: 'Write the tests', done: true });
    const status = await t.api('GET', `/v1/cards/${card.body.id}`);
    expect(status.body).toMatchObject({ criteria_done: 1, criteria_total: 2 });

    // Done now: no reminder for it later that day.
    await eventually(async () => (await sendTodoReminders(jobDeps(t, () => now))).sent === 0, 2_000, 'an idle sweep');
    expect(remindersIn(fake.calls)).toHaveLength(1);
  });

  it('two quick Done clicks on one reminder: both todos show done, whichever update lands last', async () => {
    now = new Date('2026-03-13T08:00:00Z');
    const a = await addTodo(t, uma, { title: 'First quick one', due_on: '2026-03-13' });
    const b = await addTodo(t, uma, { title: 'Second quick one', due_on: '2026-03-13' });
    now = new Date('2026-03-13T09:00:00Z');
    fake.clear();
    expect(await sendTodoReminders(jobDeps(t, () => now))).toMatchObject({ sent: 1 });
    const dm = dmChannelOf('U0UMA');
    const reminder = fake.messages(dm).at(-1)!;
    fake.handle('response', (call) => fake.answerAsSlack(call));
    // Both clicks carry the message as it was posted: Slack sends each click its own snapshot.
    const snapshot = { ts: reminder.ts, text: reminder.text, blocks: reminder.blocks };
    const slack = slackClient(t.url, 'jobs-secret');
    const click = (todoId: string) =>
      slack.click({ action_id: 'todo_done', value: todoId, response_url: fake.responseUrl(), user_id: 'U0UMA', channel_id: dm, message: snapshot }, { timestamp: Math.floor(now.getTime() / 1000) });
    const results = await Promise.all([click(a.id), click(b.id)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    // Each click updates the message, then refreshes the Home tab: both have answered when both have published.
    await eventually(() => fake.callsTo('views.publish').length >= 2 && fake.callsTo('chat.update').length >= 2, 10_000, 'both clicks answered');
    const shown = fake.messages(dm).find((m) => m.ts === reminder.ts)!;
    const json = JSON.stringify(shown.blocks);
    expect(json).toContain('~First quick one~ done');
    expect(json).toContain('~Second quick one~ done');
    expect(json).not.toContain('"action_id":"todo_done"');
    const open = await t.api('GET', '/v1/todos?done=false', { token: uma.token });
    expect(open.body.data.filter((x: { id: string }) => x.id === a.id || x.id === b.id)).toEqual([]);
  });
});
