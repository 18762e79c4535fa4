import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postMilestoneSummaries } from '../jobs/milestone-summaries.js';
import { sendTodoReminders } from '../jobs/todo-reminders.js';
import { MAX_ATTEMPTS } from '../src/domain/slack-posts.js';
import { newId } from '../src/domain/ids.js';
import { webClientOptions } from '../src/slack/bolt-app.js';
import { dmChannelOf, startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { addMember, addTodo, captureLog, jobDeps, slackEnv, todosListedIn, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { sleep, waitFor } from './helpers/wait.js';

/**
 * Slack misbehaving under the jobs, against the fake Slack: slow or broken answers never make
 * a message go out twice; a refused token stops the sweep and loses nothing; a channel the
 * bot may not post to pauses its subscription; interrupted posts are recovered reading each
 * conversation once per sweep, only since the claim.
 */

let fake: FakeSlack;
let t: TestServer;
let uma: TestMember;
let ownerId: string;
let orgId: string;
let now = new Date('2026-04-01T00:00:00Z');
const at = (iso: string) => {
  now = new Date(iso);
};
const later = (minutes: number) => at(new Date(now.getTime() + minutes * 60_000).toISOString());

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  uma = await addMember(t, { name: 'Uma', slack_user_id: 'U0UMA', tz: 'UTC' });
  const me = await t.api('GET', '/v1/me');
  ownerId = me.body.member.id;
  orgId = me.body.org.id;
  expect((await t.api('PATCH', `/v1/members/${ownerId}`, { body: { slack_user_id: 'U0OWNER', tz: 'UTC' } })).status).toBe(200);
  expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M1', name: 'Sprint 1', kind: 'sprint' } })).status).toBe(201);
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

const db = () => t.server.db.db;
const postRow = (subjectId: string) => db().selectFrom('slack_posts').selectAll().where('subject_id', '=', subjectId).executeTakeFirstOrThrow();
/** A member's reminder message of a day (one per member and day). */
const digestRow = (memberId: string, date: string) =>
  db().selectFrom('slack_posts').selectAll().where('kind', '=', 'todo_digest').where('subject_id', '=', memberId).where('period', '=', date).executeTakeFirstOrThrow();
/** The reminder messages in a channel that list the todo. */
const marked = (channel: string, todoId: string) => fake.messages(channel).filter((m) => m.metadata?.event_type === 'tack_digest' && todosListedIn(m.blocks).includes(todoId));

/** Slack takes the message, then answers `answer` instead of ok (the post went through regardless). */
function postedThenAnswer(answer: { status?: number; body: unknown }) {
  return (call: RecordedCall) => {
    fake.answerAsSlack(call);
    return answer;
  };
}

describe('an unclear answer to a post is never followed by a second post', () => {
  it('a Slack slower than the client timeout: one attempt, then the message is found, not posted again', async () => {
    at('2026-04-01T08:00:00Z');
    const todo = await addTodo(t, uma, { title: 'Slow Slack', due_on: '2026-04-01' });
    // Slack keeps the message at once but answers after the client has given up.
    fake.handle('chat.postMessage', async (call) => {
      const answer = fake.answerAsSlack(call);
      await sleep(1_500);
      return answer;
    });
    const slack = new WebClient('xoxb-jobs', { ...webClientOptions(fake.apiUrl), timeout: 300 });
    at('2026-04-01T09:00:00Z');
    expect(await sendTodoReminders(jobDeps(t, () => now, { slack }))).toEqual({ sent: 0, skipped: 0, failed: 1 });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(await digestRow(uma.id, '2026-04-01')).toMatchObject({ state: 'sending', attempts: 1 });

    fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    later(2);
    expect(await sendTodoReminders(jobDeps(t, () => now, { slack }))).toEqual({ sent: 1, skipped: 0, failed: 0 });
    expect(marked(dmChannelOf('U0UMA'), todo.id)).toHaveLength(1);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(await postRow(todo.id)).toMatchObject({ state: 'sent', message_ts: marked(dmChannelOf('U0UMA'), todo.id)[0]!.ts });
  });

  for (const [i, [what, answer]] of ([
    ['fatal_error', { body: { ok: false, error: 'fatal_error' } }],
    ['internal_error', { body: { ok: false, error: 'internal_error' } }],
    ['an HTTP 503', { status: 503, body: 'Service Unavailable' }],
  ] as const).entries()) {
    it(`${what} counts as "may have been posted": the next attempt looks first, and finds it`, async () => {
      // A day of its own each: a day whose reminder went out adds new todos to that message.
      const date = `2026-04-2${i}`;
      at(`${date}T08:00:00Z`);
      const todo = await addTodo(t, uma, { title: `Unclear: ${what}`, due_on: date });
      fake.handle('chat.postMessage', postedThenAnswer(answer));
      at(`${date}T09:00:00Z`);
      expect(await sendTodoReminders(jobDeps(t, () => now))).toMatchObject({ sent: 0, failed: 1 });
      expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
      expect(await digestRow(uma.id, date)).toMatchObject({ state: 'sending' });

      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
      later(2);
      expect(await sendTodoReminders(jobDeps(t, () => now))).toMatchObject({ sent: 1, failed: 0 });
      expect(marked(dmChannelOf('U0UMA'), todo.id)).toHaveLength(1);
      expect(await postRow(todo.id)).toMatchObject({ state: 'sent' });
    });
  }
});

describe('a refused bot token', () => {
  it('stops the sweep at once with one clear error, uses up no attempts, and everything goes out once the token works', async () => {
    at('2026-04-03T08:00:00Z');
    const todos: { id: string }[] = [];
    for (let i = 0; i < 30; i++) todos.push(await addTodo(t, uma, { title: `Revoked ${i}`, due_on: '2026-04-03' }));
    fake.handle('chat.postMessage', { body: { ok: false, error: 'token_revoked' } });
    const captured = captureLog('warn');
    at('2026-04-03T09:00:00Z');
    // Revoked all day: a sweep every half hour, more than MAX_ATTEMPTS of them.
    for (let sweep = 0; sweep < MAX_ATTEMPTS + 2; sweep++) {
      const before = fake.callsTo('chat.postMessage').length;
      const result = await sendTodoReminders(jobDeps(t, () => now, { log: captured.log }));
      expect(result.sent + result.failed).toBe(0);
      // Stopped at once: only the posts already in flight (at most 8 at a time) reached Slack.
      expect(fake.callsTo('chat.postMessage').length - before).toBeLessThanOrEqual(8);
      later(30);
    }
    const errors = captured.lines().filter((l) => l.level >= 50);
    expect(errors).toHaveLength(MAX_ATTEMPTS + 2);
    expect(errors[0]).toMatchObject({ job: 'todo-reminders', slack_error: 'token_revoked' });
    expect(errors[0]!.msg).toContain('Slack refused the bot token (token_revoked)');
    const rows = await db().selectFrom('slack_posts').select(['state', 'attempts']).where('subject_id', 'in', todos.map((x) => x.id)).execute();
    expect(rows.every((r) => r.attempts === 0 && r.state !== 'failed')).toBe(true);
    expect(await digestRow(uma.id, '2026-04-03')).toMatchObject({ attempts: 0, state: 'retry' });

    fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    fake.clear();
    // One message for the day, listing 20 of the 30; all 30 are reminded once for this date.
    expect(await sendTodoReminders(jobDeps(t, () => now))).toMatchObject({ sent: 1, failed: 0 });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(todosListedIn(fake.callsTo('chat.postMessage')[0]!.body.blocks)).toHaveLength(20);
    expect((await db().selectFrom('slack_posts').select('state').where('subject_id', 'in', todos.map((x) => x.id)).execute()).map((r) => r.state)).toEqual(todos.map(() => 'sent'));
  });

  it('is checked with auth.test at start: logged clearly, and the server still starts', async () => {
    const refusing = await startFakeSlack();
    refusing.handle('auth.test', { body: { ok: false, error: 'invalid_auth' } });
    const captured = captureLog('info');
    const server = await startTestServer({ ...slackEnv(refusing), DATABASE_URL: t.database!.url }, { log: captured.log });
    try {
      await refusing.waitFor((c) => c.method === 'auth.test');
      const line = await waitFor('the token error in the log', () => captured.lines().find((l) => l.level >= 50 && String(l.msg).includes('invalid_auth')));
      expect(line.msg).toContain('Slack refused the bot token');
      expect((await server.api('GET', '/v1/me', { token: t.token })).status).toBe(200);
    } finally {
      await server.close();
      await refusing.close();
    }
  });
});

describe('a channel the bot may not post to', () => {
  async function subscribe(channel: string): Promise<string> {
    const id = newId('sub');
    await db()
      .insertInto('slack_subscriptions')
      .values({ id, org_id: orgId, milestone_ref: 'M1', channel_id: channel, cadence: 'daily', tz: 'UTC', created_by: ownerId })
      .execute();
    return id;
  }
  const dmsToOwner = () => fake.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === dmChannelOf('U0OWNER'));
  const day = (base: number, offset: number) => new Date(Date.UTC(2026, 4, 1 + base + offset, 10)).toISOString();

  for (const [i, error] of ['not_in_channel', 'channel_not_found', 'is_archived'].entries()) {
    it(`${error}: pauses the subscription, tells its subscriber once, and subscribing again resumes it`, async () => {
      const channel = `C0${error.replace(/_/g, '').toUpperCase().slice(0, 10)}`;
      const id = await subscribe(channel);
      fake.handle('chat.postMessage', (call) => (call.body.channel === channel ? { body: { ok: false, error } } : fake.answerAsSlack(call)));
      at(day(3 * i, 0));
      expect(await postMilestoneSummaries(jobDeps(t, () => now))).toMatchObject({ failed: 0, skipped: 1 });
      const sub = await db().selectFrom('slack_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(sub).toMatchObject({ paused_reason: error });
      expect(sub.paused_at).not.toBeNull();
      expect(dmsToOwner()).toHaveLength(1);
      expect(dmsToOwner()[0]!.body.text).toContain('/milestone M1 subscribe');

      // Paused: the next days leave the channel alone and say nothing more.
      for (const offset of [1, 2]) {
        at(day(3 * i, offset));
        await postMilestoneSummaries(jobDeps(t, () => now));
      }
      expect(fake.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === channel)).toHaveLength(1);
      expect(dmsToOwner()).toHaveLength(1);

      // The bot is invited; subscribing again in the channel resumes it, and today's summary goes out.
      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
      const response_url = fake.responseUrl();
      // Signed at the server's (pinned) time.
      const timestamp = Math.floor(now.getTime() / 1000);
      const res = await slackClient(t.url, 'jobs-secret').command(
        { command: '/milestone', text: 'M1 subscribe daily', response_url, user_id: 'U0OWNER', channel_id: channel },
        { timestamp },
      );
      expect(res.status).toBe(200);
      const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
      expect(reply.body.text).toBe("Resumed: this channel gets M1's status again, daily at 09:00 (UTC).");
      expect((await db().selectFrom('slack_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow()).paused_at).toBeNull();
      expect(await postMilestoneSummaries(jobDeps(t, () => now))).toMatchObject({ sent: 1 });
      const kept = fake.messages(channel).filter((m) => m.metadata?.event_type === 'tack_summary');
      expect(kept.map((m) => m.metadata!.event_payload.period)).toEqual([day(3 * i, 2).slice(0, 10)]);
    });
  }
});

describe('recovering interrupted posts', () => {
  it('reads each conversation once per sweep, only since the claim', async () => {
    at('2026-04-10T08:00:00Z');
    const ravi = await addMember(t, { name: 'Ravi', slack_user_id: 'U0RAVI', tz: 'UTC' });
    const todos: { id: string }[] = [];
    for (let i = 0; i < 6; i++) todos.push(await addTodo(t, i % 2 ? uma : ravi, { title: `Interrupted ${i}`, due_on: '2026-04-10' }));
    // Every post goes through, and no answer says so: both members' messages left `sending`.
    fake.handle('chat.postMessage', postedThenAnswer({ body: { ok: false, error: 'fatal_error' } }));
    at('2026-04-10T09:00:00Z');
    const claimedAt = now;
    expect(await sendTodoReminders(jobDeps(t, () => now))).toMatchObject({ failed: 2 });
    fake.clear();
    fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    later(2);
    expect(await sendTodoReminders(jobDeps(t, () => now))).toMatchObject({ sent: 2, failed: 0 });
    const history = fake.callsTo('conversations.history');
    expect(history.map((c) => c.body.channel).sort()).toEqual([dmChannelOf('U0RAVI'), dmChannelOf('U0UMA')]);
    for (const call of history) {
      // From the first claim (less a few minutes for clock skew), not the whole conversation.
      const oldest = Number(call.body.oldest);
      expect(oldest).toBeGreaterThan(claimedAt.getTime() / 1000 - 600);
      expect(oldest).toBeLessThanOrEqual(claimedAt.getTime() / 1000);
    }
    expect(fake.callsTo('chat.postMessage')).toEqual([]);
    for (const x of todos) expect((await postRow(x.id)).state).toBe('sent');
  });
});
