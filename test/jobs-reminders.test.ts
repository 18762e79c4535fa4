import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendTodoReminders } from '../jobs/todo-reminders.js';
import { MAX_ATTEMPTS } from '../src/domain/slack-posts.js';
import { createSecondOrg } from './helpers/second-org.js';
import { dmChannelOf, startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, jobDeps, remindersIn, remindersPerTodo, slackEnv, todosListedIn, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * Due-todo reminders against a real Postgres and the fake Slack Web API, on a pinned clock:
 * the right local hour in several time zones (across DST changes), once per todo and due
 * date, skipped and counted without a Slack link, and `runJob` over /v1.
 */

let fake: FakeSlack;
let t: TestServer;
let now = new Date('2026-03-07T00:00:00Z');
const at = (iso: string) => {
  now = new Date(iso);
};
let ana: TestMember; // America/New_York
let ravi: TestMember; // Asia/Kolkata
let uma: TestMember; // UTC
let ben: TestMember; // Europe/Berlin
let nolink: TestMember;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  ana = await addMember(t, { name: 'Ana', slack_user_id: 'U0ANA', tz: 'America/New_York' });
  ravi = await addMember(t, { name: 'Ravi', slack_user_id: 'U0RAVI', tz: 'Asia/Kolkata' });
  uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
  ben = await addMember(t, { name: 'Ben', slack_user_id: 'U0BEN', tz: 'Europe/Berlin' });
  nolink = await addMember(t, { name: 'Nolan', tz: 'UTC' });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(async () => {
  fake.clear();
  // The tests move the clock back and forth: a Retry-After one of them was given (kept for the
  // whole workspace) must not hold another's earlier day.
  await t.server.db.db.deleteFrom('slack_rate_limits').execute();
});

const sweep = () => sendTodoReminders(jobDeps(t, () => now));

describe('todo reminders', () => {
  it('go out at REMINDER_HOUR local time in three time zones, on the day New York moves to summer time', async () => {
    const ny = await addTodo(t, ana, { title: 'Ship the NY report', due_on: '2026-03-08', priority: 'high' });
    const kol = await addTodo(t, ravi, { title: 'Kolkata standup notes', due_on: '2026-03-08' });
    const utc = await addTodo(t, uma, { title: 'UTC invoice', due_on: '2026-03-08', priority: 'urgent' });
    const sentAt = new Map<string, string>();
    // Kolkata 09:00 IST = 03:30Z; UTC 09:00Z; New York 09:00 EDT (not EST: DST began at 02:00) = 13:00Z.
    for (const iso of ['2026-03-08T03:29:00Z', '2026-03-08T03:30:00Z', '2026-03-08T08:59:00Z', '2026-03-08T09:00:00Z', '2026-03-08T12:59:00Z', '2026-03-08T13:00:00Z', '2026-03-08T13:01:00Z', '2026-03-08T23:00:00Z']) {
      at(iso);
      const before = fake.calls.length;
      await sweep();
      for (const call of remindersIn(fake.calls.slice(before))) for (const id of todosListedIn(call.body.blocks)) sentAt.set(id, iso);
    }
    expect(sentAt.get(kol.id)).toBe('2026-03-08T03:30:00Z');
    expect(sentAt.get(utc.id)).toBe('2026-03-08T09:00:00Z');
    expect(sentAt.get(ny.id)).toBe('2026-03-08T13:00:00Z');
    const counts = remindersPerTodo(fake.calls);
    expect([counts.get(kol.id), counts.get(utc.id), counts.get(ny.id)]).toEqual([1, 1, 1]);
  });

  it('follow the DST changes of Berlin (spring) and New York (autumn)', async () => {
    const berlin = await addTodo(t, ben, { title: 'Berlin spring', due_on: '2026-03-29' });
    const autumn = await addTodo(t, ana, { title: 'NY autumn', due_on: '2026-11-01' });
    // Berlin 09:00 CEST on 29 March (clocks went forward at 02:00) = 07:00Z, not 08:00Z.
    at('2026-03-29T06:59:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(berlin.id)).toBeUndefined();
    at('2026-03-29T07:00:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(berlin.id)).toBe(1);
    // New York 09:00 EST on 1 November (clocks went back at 02:00) = 14:00Z, not 13:00Z.
    at('2026-11-01T13:30:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(autumn.id)).toBeUndefined();
    at('2026-11-01T14:00:00Z');
    await sweep();
    at('2026-11-01T18:00:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(autumn.id)).toBe(1);
  });

  it('is a direct message to the owner with the todo, its priority, its card and a Done button', async () => {
    await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' } });
    const card = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Login page' } });
    expect(card.status).toBe(201);
    at('2026-04-01T08:00:00Z');
    const todo = await addTodo(t, uma, { title: 'Write <tests> & docs', due_on: '2026-04-01', priority: 'high', card_id: card.body.id });
    at('2026-04-01T09:00:00Z');
    const result = await sweep();
    expect(result).toMatchObject({ sent: 1, failed: 0 });
    // Uma's DM was opened for her first reminder (above) and is kept: not opened again.
    expect(fake.callsTo('conversations.open')).toEqual([]);
    const [post] = remindersIn(fake.calls);
    expect(post!.body.channel).toBe(dmChannelOf('U0UMA'));
    // Escaped for mrkdwn, as the fallback text is read too.
    expect(post!.body.text).toBe(`Reminder: "Write &lt;tests&gt; &amp; docs" (high) on card ${card.body.ref} is due today (2026-04-01).`);
    expect(post!.body.metadata).toEqual({ event_type: 'tack_digest', event_payload: { member_id: uma.id, date: '2026-04-01' } });
    expect(todosListedIn(post!.body.blocks)).toEqual([todo.id]);
    const blocks = JSON.stringify(post!.body.blocks);
    expect(blocks).toContain('Write &lt;tests&gt; &amp; docs');
    expect(blocks).toContain('high');
    expect(blocks).toContain(card.body.ref);
    expect(post!.body.blocks.flatMap((b: any) => (b.accessory ? [b.accessory] : []))).toEqual([
      expect.objectContaining({ type: 'button', action_id: 'todo_done', value: todo.id }),
    ]);
  });

  it('goes out at once for a todo created after the hour, and again on the new date when updateTodo re-dates it', async () => {
    at('2026-05-04T15:00:00Z');
    const late = await addTodo(t, uma, { title: 'Created late', due_on: '2026-05-04' });
    await sweep();
    expect(remindersPerTodo(fake.calls).get(late.id)).toBe(1);
    await sweep();
    expect(remindersPerTodo(fake.calls).get(late.id)).toBe(1);
    const redated = await t.api('PATCH', `/v1/todos/${late.id}`, { token: uma.token, body: { due_on: '2026-05-05' } });
    expect(redated.body.due_on).toBe('2026-05-05');
    const deleted = await addTodo(t, uma, { title: 'Deleted before its day', due_on: '2026-05-05' });
    expect((await t.api('DELETE', `/v1/todos/${deleted.id}`, { token: uma.token })).status).toBe(204);
    at('2026-05-05T08:59:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(late.id)).toBe(1);
    at('2026-05-05T09:00:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(late.id)).toBe(2);
    const posts = remindersIn(fake.calls).filter((c) => todosListedIn(c.body.blocks).includes(late.id));
    expect(posts.map((c) => c.body.metadata.event_payload.date)).toEqual(['2026-05-04', '2026-05-05']);
    expect(remindersPerTodo(fake.calls).get(deleted.id)).toBeUndefined();
  });

  it('catches up a reminder missed yesterday, but not older ones, and never reminds done todos', async () => {
    at('2026-06-01T08:00:00Z');
    const yesterday = await addTodo(t, uma, { title: 'Due yesterday', due_on: '2026-05-31' });
    const older = await addTodo(t, uma, { title: 'Due two days ago', due_on: '2026-05-30' });
    const done = await addTodo(t, uma, { title: 'Already done', due_on: '2026-06-01' });
    expect((await t.api('POST', `/v1/todos/${done.id}/done`, { token: uma.token })).status).toBe(200);
    await sweep();
    const counts = remindersPerTodo(fake.calls);
    expect(counts.get(yesterday.id)).toBe(1);
    expect(counts.get(older.id)).toBeUndefined();
    at('2026-06-01T10:00:00Z');
    await sweep();
    expect(remindersPerTodo(fake.calls).get(done.id)).toBeUndefined();
    const caughtUp = remindersIn(fake.calls).find((c) => todosListedIn(c.body.blocks).includes(yesterday.id))!;
    expect(caughtUp.body.text).toContain('overdue since 2026-05-31');
  });

  it('skips owners without a Slack link and counts them', async () => {
    at('2026-07-01T08:00:00Z');
    await addTodo(t, nolink, { title: 'Nobody to tell', due_on: '2026-07-01' });
    await addTodo(t, uma, { title: 'Someone to tell', due_on: '2026-07-01' });
    at('2026-07-01T09:00:00Z');
    expect(await sweep()).toEqual({ sent: 1, skipped: 1, failed: 0 });
    expect(remindersIn(fake.calls).map((c) => c.body.channel)).toEqual([dmChannelOf('U0UMA')]);
    // Still unlinked at the next sweep: counted again, still nothing sent.
    expect(await sweep()).toEqual({ sent: 0, skipped: 1, failed: 0 });
  });

  it('send each reminder once when two sweeps run at the same time', async () => {
    at('2026-08-03T08:00:00Z');
    const todos: { id: string }[] = [];
    for (let i = 0; i < 30; i++) todos.push(await addTodo(t, i % 2 ? uma : ravi, { title: `Race ${i}`, due_on: '2026-08-03' }));
    at('2026-08-03T12:00:00Z');
    const [a, b] = await Promise.all([sweep(), sweep()]);
    // One message for each of the two members, listing each of their todos once.
    expect(a.sent + b.sent).toBe(2);
    expect(remindersIn(fake.calls)).toHaveLength(2);
    expect(a.failed + b.failed).toBe(0);
    const counts = remindersPerTodo(fake.calls);
    expect(todos.map((x) => counts.get(x.id))).toEqual(todos.map(() => 1));
  });

  it('hands a post Slack rate limits (429) back until its Retry-After, without using an attempt, and sends it once', async () => {
    at('2026-09-01T08:00:00Z');
    const todo = await addTodo(t, uma, { title: 'Rate limited', due_on: '2026-09-01' });
    fake.handleOnce('chat.postMessage', { status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } });
    at('2026-09-01T09:00:00Z');
    // The client does not retry: one call, and the post goes back to the claim table.
    expect(await sweep()).toEqual({ sent: 0, skipped: 1, failed: 0 });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    const row = () => t.server.db.db.selectFrom('slack_posts').selectAll().where('subject_id', '=', todo.id).executeTakeFirstOrThrow();
    expect(await row()).toMatchObject({ state: 'retry', attempts: 0 });
    at('2026-09-01T09:00:29Z');
    expect(await sweep()).toEqual({ sent: 0, skipped: 0, failed: 0 });
    at('2026-09-01T09:00:30Z');
    expect(await sweep()).toMatchObject({ sent: 1, failed: 0 });
    expect(fake.messages(dmChannelOf('U0UMA')).filter((m) => todosListedIn(m.blocks).includes(todo.id))).toHaveLength(1);
    // Slack refused it outright, so there was nothing to look for first.
    expect(fake.callsTo('conversations.history')).toEqual([]);
  });

  it('never gives up a post for being rate limited, however often', async () => {
    // A day of its own: on a day whose reminder already went out, a new todo joins that message.
    at('2026-08-20T10:00:00Z');
    const todo = await addTodo(t, uma, { title: 'Still rate limited', due_on: '2026-08-20' });
    fake.handle('chat.postMessage', { status: 429, headers: { 'retry-after': '0' }, body: { ok: false, error: 'ratelimited' } });
    try {
      for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
        at(new Date(now.getTime() + 60_000).toISOString());
        expect(await sweep()).toEqual({ sent: 0, skipped: 1, failed: 0 });
      }
    } finally {
      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    }
    const row = await t.server.db.db.selectFrom('slack_posts').selectAll().where('subject_id', '=', todo.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'retry', attempts: 0 });
    at(new Date(now.getTime() + 60_000).toISOString());
    expect(await sweep()).toMatchObject({ sent: 1, failed: 0 });
  });

  it('retries later when Slack refuses, with a backoff, and gives up only after the last attempt', async () => {
    const digestRow = (date: string) =>
      t.server.db.db.selectFrom('slack_posts').selectAll().where('kind', '=', 'todo_digest').where('subject_id', '=', uma.id).where('period', '=', date).executeTakeFirstOrThrow();
    const todoRow = (id: string) => t.server.db.db.selectFrom('slack_posts').selectAll().where('subject_id', '=', id).executeTakeFirstOrThrow();
    at('2026-09-02T08:00:00Z');
    const todo = await addTodo(t, uma, { title: 'Refused once', due_on: '2026-09-02' });
    fake.handleOnce('chat.postMessage', { body: { ok: false, error: 'channel_not_found' } });
    at('2026-09-02T09:00:00Z');
    expect(await sweep()).toMatchObject({ sent: 0, failed: 1 });
    expect(await digestRow('2026-09-02')).toMatchObject({ state: 'retry', attempts: 1, last_error: expect.stringContaining('channel_not_found') });
    // The todo waits for its day's message, with no attempt of its own used.
    expect(await todoRow(todo.id)).toMatchObject({ state: 'retry', attempts: 0, last_error: expect.stringContaining('channel_not_found') });
    // Backing off: not retried within the minute, retried after it.
    at('2026-09-02T09:00:30Z');
    expect(await sweep()).toMatchObject({ sent: 0, failed: 0 });
    at('2026-09-02T09:01:00Z');
    expect(await sweep()).toMatchObject({ sent: 1, failed: 0 });
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(2);
    expect(fake.messages(dmChannelOf('U0UMA')).filter((m) => todosListedIn(m.blocks).includes(todo.id))).toHaveLength(1);

    at('2026-09-03T08:30:00Z');
    const doomed = await addTodo(t, uma, { title: 'Refused every time', due_on: '2026-09-03' });
    fake.handle('chat.postMessage', { body: { ok: false, error: 'channel_not_found' } });
    try {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        at(new Date(now.getTime() + 31 * 60_000).toISOString());
        expect(await sweep()).toMatchObject({ sent: 0, failed: 1 });
      }
      at(new Date(now.getTime() + 31 * 60_000).toISOString());
      expect(await sweep()).toMatchObject({ sent: 0, failed: 0 });
    } finally {
      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    }
    expect(await digestRow('2026-09-03')).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS });
    expect(await todoRow(doomed.id)).toMatchObject({ state: 'failed' });
  });

  it('retries a refused post on the next minute’s sweep, though it failed some seconds into its own', async () => {
    const digest = () => t.server.db.db.selectFrom('slack_posts').selectAll().where('kind', '=', 'todo_digest').where('subject_id', '=', uma.id).where('period', '=', '2026-09-06').executeTakeFirstOrThrow();
    at('2026-09-06T08:00:00Z');
    await addTodo(t, uma, { title: 'Refused late in its sweep', due_on: '2026-09-06' });
    // A slow sweep: the refusal comes 7 s after the sweep began.
    fake.handleOnce('chat.postMessage', () => {
      now = new Date(now.getTime() + 7_000);
      return { body: { ok: false, error: 'channel_not_found' } };
    });
    at('2026-09-06T09:00:00Z');
    expect(await sweep()).toMatchObject({ sent: 0, failed: 1 });
    expect(await digest()).toMatchObject({ state: 'retry', attempts: 1 });
    // The scheduler's next sweep, a minute after the last began, takes it.
    at('2026-09-06T09:01:00Z');
    expect(await sweep()).toMatchObject({ sent: 1, failed: 0 });
    expect(await digest()).toMatchObject({ state: 'sent' });
  });

  it('posts the text alone, at once and once, when Slack refuses the blocks as built; a todo added later that day updates it alike', async () => {
    const row = (subjectId: string) => t.server.db.db.selectFrom('slack_posts').selectAll().where('subject_id', '=', subjectId).where('period', '=', '2026-09-04').executeTakeFirstOrThrow();
    at('2026-09-04T08:00:00Z');
    const todo = await addTodo(t, uma, { title: 'Blocks refused', due_on: '2026-09-04' });
    // Slack's answer to blocks whose text is too long, whatever is retried later.
    fake.handle('chat.postMessage', (call) => (call.body.blocks ? { body: { ok: false, error: 'msg_blocks_too_long' } } : fake.answerAsSlack(call)));
    fake.handle('chat.update', (call) => (call.body.blocks ? { body: { ok: false, error: 'invalid_blocks' } } : fake.answerAsSlack(call)));
    try {
      at('2026-09-04T09:00:00Z');
      expect(await sweep()).toEqual({ sent: 1, skipped: 0, failed: 0 });
      const [refused, alone] = fake.callsTo('chat.postMessage');
      expect(fake.callsTo('chat.postMessage')).toHaveLength(2);
      expect(refused!.body.blocks).toBeDefined();
      expect(alone!.body).toMatchObject({ channel: dmChannelOf('U0UMA'), text: expect.stringContaining('Blocks refused'), metadata: refused!.body.metadata });
      expect(alone!.body.blocks).toBeUndefined();
      expect(await row(uma.id)).toMatchObject({ state: 'sent', attempts: 1, message_ts: expect.any(String) });
      expect(await row(todo.id)).toMatchObject({ state: 'sent' });
      // Nothing left to send: the next sweep posts nothing.
      at('2026-09-04T09:05:00Z');
      expect(await sweep()).toEqual({ sent: 0, skipped: 0, failed: 0 });
      expect(fake.callsTo('chat.postMessage')).toHaveLength(2);

      const late = await addTodo(t, uma, { title: 'Added after it went out', due_on: '2026-09-04' });
      expect(await sweep()).toMatchObject({ sent: 1, failed: 0 });
      const updates = fake.callsTo('chat.update');
      expect(updates).toHaveLength(2);
      expect(updates[1]!.body).toMatchObject({ ts: (await row(uma.id)).message_ts, text: expect.stringContaining('Added after it went out') });
      expect(updates[1]!.body.blocks).toBeUndefined();
      expect(await row(late.id)).toMatchObject({ state: 'sent' });
    } finally {
      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
      fake.handle('chat.update', (call) => fake.answerAsSlack(call));
    }
  });
});

describe('runJob', () => {
  it('runs a job now for the caller’s organization and says what it did', async () => {
    at('2026-10-05T08:00:00Z');
    const todo = await addTodo(t, uma, { title: 'On demand', due_on: '2026-10-05' });
    at('2026-10-05T09:30:00Z');
    const res = await t.api('POST', '/v1/jobs/todo-reminders/run');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: 1, skipped: 0, failed: 0 });
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBe(1);
    const again = await t.api('POST', '/v1/jobs/todo-reminders/run');
    expect(again.body).toEqual({ sent: 0, skipped: 0, failed: 0 });
    const summaries = await t.api('POST', '/v1/jobs/milestone-summaries/run');
    expect(summaries.status).toBe(200);
    expect(summaries.body).toEqual({ sent: 0, skipped: 0, failed: 0 });
  });

  it('sends nothing on a server without Slack, and counts what was due as skipped', async () => {
    at('2026-10-04T08:00:00Z');
    await addTodo(t, uma, { title: 'No Slack here', due_on: '2026-10-04' });
    at('2026-10-04T09:30:00Z');
    const bare = await startTestServer({ DATABASE_URL: t.database!.url }, { clock: () => now });
    try {
      const res = await bare.api('POST', '/v1/jobs/todo-reminders/run', { token: t.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ sent: 0, skipped: 1, failed: 0 });
      expect(remindersIn(fake.calls)).toEqual([]);
    } finally {
      await bare.server.close();
    }
    // The todo is still due for a server that has Slack.
    expect((await t.api('POST', '/v1/jobs/todo-reminders/run')).body).toEqual({ sent: 1, skipped: 0, failed: 0 });
  });

  it('replays a response for a repeated Idempotency-Key', async () => {
    at('2026-10-06T08:00:00Z');
    await addTodo(t, uma, { title: 'Keyed', due_on: '2026-10-06' });
    at('2026-10-06T09:30:00Z');
    const headers = { 'idempotency-key': 'run-once-please' };
    const first = await t.api('POST', '/v1/jobs/todo-reminders/run', { headers });
    expect(first.body).toEqual({ sent: 1, skipped: 0, failed: 0 });
    const second = await t.api('POST', '/v1/jobs/todo-reminders/run', { headers });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('needs the replay scope, refuses viewers and unknown jobs, and never reaches another organization', async () => {
    const noReplay = await t.api('POST', '/v1/tokens', { body: { name: 'no replay', scopes: ['read', 'write'] } });
    const refused = await t.api('POST', '/v1/jobs/todo-reminders/run', { token: noReplay.body.token });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    const viewer = await addMember(t, { name: 'Vera', role: 'viewer' });
    const viewerToken = await t.api('POST', '/v1/tokens', { body: { name: 'viewer replay', scopes: ['read', 'replay'], member_id: viewer.id } });
    const asViewer = await t.api('POST', '/v1/jobs/todo-reminders/run', { token: viewerToken.body.token });
    expect(asViewer.status).toBe(403);
    const unknown = await t.api('POST', '/v1/jobs/backup/run');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('job_not_found');

    at('2026-10-07T08:00:00Z');
    const todo = await addTodo(t, uma, { title: 'Not for the other org', due_on: '2026-10-07' });
    at('2026-10-07T09:30:00Z');
    const other = await createSecondOrg(t.server.db.db);
    const res = await t.api('POST', '/v1/jobs/todo-reminders/run', { token: other.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: 0, skipped: 0, failed: 0 });
    expect(remindersPerTodo(fake.calls).get(todo.id)).toBeUndefined();
  });
});
