import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { addMember, addTodo, eventually, type TestMember } from './helpers/jobs.js';
import { member } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { messageShortcutBody, slackClient, viewSubmissionBody } from './helpers/slack-request.js';
import { sleep } from './helpers/wait.js';

/**
 * Modals as Slack holds them to it: views.open must come within 3 seconds of the
 * interaction's trigger_id (the fake answers `expired_trigger_id` after that), whatever else
 * is slow (a full command queue, users.info, chat.getPermalink), and one 429 on views.publish
 * never holds anybody's modal behind it.
 */

const SECRET = 'modal-secret';
const OWNER = 'U0MODOWNER';

let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;
let owner: TestMember;

/** Slack's users.info for `user`: a confirmed e-mail when one is given, else an empty profile. */
function profile(user: string, email?: string) {
  return { body: { ok: true, user: { id: user, tz: 'UTC', is_email_confirmed: email !== undefined, profile: email ? { email } : {} } } };
}

const EMAILS: Record<string, string> = {};

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-modal', SLACK_API_URL: fake.apiUrl });
  slack = slackClient(t.url, SECRET);
  const me = await t.api('GET', '/v1/me');
  owner = { id: me.body.member.id, token: t.token };
  expect((await t.api('PATCH', `/v1/members/${owner.id}`, { body: { slack_user_id: OWNER, tz: 'UTC' } })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.clear();
  fake.handle('users.info', (call) => profile(String(call.body.user), EMAILS[String(call.body.user)]));
  fake.handle('chat.getPermalink', (call) => fake.answerAsSlack(call));
  fake.handle('views.open', (call) => fake.answerAsSlack(call));
  fake.handle('views.publish', (call) => fake.answerAsSlack(call));
});

/** A member that Slack will link by their confirmed e-mail on first use. */
async function memberByEmail(name: string, slackUserId: string): Promise<string> {
  const email = `${name.toLowerCase()}@example.com`;
  const { id } = await member(t, { name, email, role: 'member' });
  EMAILS[slackUserId] = email;
  return id;
}

/** The views.open call made with `trigger`, once the fake has answered it. */
async function openedWith(trigger: string, timeoutMs = 10_000): Promise<RecordedCall> {
  const call = await fake.waitFor((c) => c.method === 'views.open' && c.body.trigger_id === trigger, timeoutMs);
  await eventually(() => call.response !== undefined, 5_000, 'the fake answered views.open');
  return call;
}

const slackOf = (memberId: string) => t.api('GET', '/v1/members?limit=100').then((r) => r.body.data.find((m: { id: string }) => m.id === memberId)?.slack_user_id);

describe('/todo add with no text', () => {
  it('opens the form within 3 s even behind a full command queue and a slow users.info, and links the user after', async () => {
    const memberId = await memberByEmail('Quinn', 'U0QUINN');
    // Slack's users.info answers after 2.5 s: every command below waits for one.
    fake.handle('users.info', async (call) => {
      await sleep(2_500);
      return profile(String(call.body.user), EMAILS[String(call.body.user)]);
    });
    // Four commands of unknown users fill the queue's four lanes for 2.5 s.
    const busy = Array.from({ length: 4 }, (_, i) => slack.command({ command: '/todo', text: '', response_url: fake.responseUrl(), user_id: `U0BUSY${i}` }));
    await Promise.all(busy);
    const trigger = fake.trigger();
    const response_url = fake.responseUrl();
    expect((await slack.command({ command: '/todo', text: 'add', response_url, user_id: 'U0QUINN', trigger_id: trigger })).status).toBe(200);
    const open = await openedWith(trigger);
    expect(open.response!.body).toMatchObject({ ok: true });
    expect(open.body.view.callback_id).toBe('create_todo');
    // Then, in the queue: who it is. Linked by the confirmed e-mail; the form stays as it is.
    await eventually(async () => (await slackOf(memberId)) === 'U0QUINN', 15_000, 'Quinn linked');
    expect(fake.callsTo('views.update')).toEqual([]);
    const submitted = await slack.interaction(
      viewSubmissionBody({ user_id: 'U0QUINN', callback_id: 'create_todo', private_metadata: open.body.view.private_metadata, values: { title: { title: { type: 'plain_text_input', value: 'From the form' } } } }),
    );
    expect(submitted.status).toBe(200);
    expect(submitted.text).toBe('');
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    expect(reply.body.text).toContain('Added todo "From the form"');
  });

  it('tells the person when Slack does not open the form (expired_trigger_id), ephemeral', async () => {
    fake.handleOnce('views.open', { body: { ok: false, error: 'expired_trigger_id' } });
    const response_url = fake.responseUrl();
    await slack.command({ command: '/todo', text: 'add', response_url, user_id: OWNER });
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.body.text).toContain('Slack did not open the form');
    expect(reply.body.text).toContain('expired_trigger_id');
    expect(reply.body.text).toContain('/todo add &lt;title&gt;');
  });

  it('replaces the form with how to link for a Slack user tack does not know', async () => {
    const trigger = fake.trigger();
    await slack.command({ command: '/todo', text: 'add', response_url: fake.responseUrl(), user_id: 'U0NOBODY', trigger_id: trigger });
    const open = await openedWith(trigger);
    expect(open.response!.body).toMatchObject({ ok: true });
    const update = await fake.waitFor((c) => c.method === 'views.update');
    expect(update.body.view_id).toBe((open.response!.body as { view: { id: string } }).view.id);
    expect(update.body.view.submit).toBeUndefined();
    expect(JSON.stringify(update.body.view.blocks)).toContain('not linked to a tack member');
  });
});

describe('the create_todo shortcut', () => {
  it('opens the form within 3 s though users.info takes 2.5 s and chat.getPermalink 3.2 s; the permalink joins it after', async () => {
    const memberId = await memberByEmail('Sasha', 'U0SASHA');
    fake.handle('users.info', async (call) => {
      await sleep(2_500);
      return profile(String(call.body.user), EMAILS[String(call.body.user)]);
    });
    fake.delay('chat.getPermalink', 3_200);
    const trigger = fake.trigger();
    const response_url = fake.responseUrl();
    const res = await slack.interaction(messageShortcutBody({ user_id: 'U0SASHA', channel_id: 'C0SLOW', ts: '1712000000.000300', text: 'Review the *draft*', response_url, trigger_id: trigger }));
    expect(res.status).toBe(200);
    const open = await openedWith(trigger);
    expect(open.response!.body).toMatchObject({ ok: true });
    expect(open.body.view.blocks.find((b: any) => b.block_id === 'title').element.initial_value).toBe('Review the *draft*');
    const update = await fake.waitFor((c) => c.method === 'views.update', 15_000);
    const metadata = update.body.view.private_metadata as string;
    expect(JSON.parse(metadata).source_url).toBe('https://example.slack.com/archives/C0SLOW/p1712000000000300');
    expect(await slackOf(memberId)).toBe('U0SASHA');
    await slack.interaction(viewSubmissionBody({ user_id: 'U0SASHA', callback_id: 'create_todo', private_metadata: metadata, values: { title: { title: { type: 'plain_text_input', value: 'Review the draft' } } } }));
    await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    // Sasha's own todo (another member's todos are not listed to the owner).
    const todo = await t.server.db.db.selectFrom('todos').select(['member_id', 'source_url']).where('title', '=', 'Review the draft').executeTakeFirstOrThrow();
    expect(todo).toEqual({ member_id: memberId, source_url: 'https://example.slack.com/archives/C0SLOW/p1712000000000300' });
  });

  it('tells the person through the response_url when Slack does not open the form', async () => {
    fake.handleOnce('views.open', { body: { ok: false, error: 'expired_trigger_id' } });
    const response_url = fake.responseUrl();
    await slack.interaction(messageShortcutBody({ user_id: OWNER, text: 'Too late', response_url }));
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    expect(reply.body.text).toContain('Slack did not open the form');
  });
});

describe('a 429 on views.publish after a click', () => {
  it("neither holds the next person's modal behind its Retry-After nor is waited out; Home refreshes wait until it passed", async () => {
    // Only the owner's: another test's Home refresh may still land meanwhile.
    const ownerPublishes = () => fake.callsTo('views.publish').filter((c) => c.body.user_id === OWNER);
    const first = await addTodo(t, owner, { title: 'Click me' });
    const second = await addTodo(t, owner, { title: 'Click me too' });
    // The owner's next publish is refused, nobody else's: a refresh from an earlier test landing
    // now must not take the 429 (it would hold the owner's refresh back before it was tried).
    let limited = false;
    fake.handle('views.publish', (call) => {
      if (limited || call.body.user_id !== OWNER) return fake.answerAsSlack(call);
      limited = true;
      return { status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } };
    });
    const clickUrl = fake.responseUrl();
    await slack.click({ action_id: 'todo_done', value: first.id, response_url: clickUrl, user_id: OWNER });
    await fake.waitFor((c) => c.path === new URL(clickUrl).pathname);
    expect(ownerPublishes()).toHaveLength(1);

    // Someone else's form opens at once, not 30 s later.
    const trigger = fake.trigger();
    await slack.command({ command: '/todo', text: 'add', response_url: fake.responseUrl(), user_id: 'U0OTHER', trigger_id: trigger });
    const open = await openedWith(trigger, 5_000);
    expect(open.response!.body).toMatchObject({ ok: true });

    // A click within the Retry-After: answered, and no Home refresh is tried.
    const againUrl = fake.responseUrl();
    await slack.click({ action_id: 'todo_done', value: second.id, response_url: againUrl, user_id: OWNER });
    const again = await fake.waitFor((c) => c.path === new URL(againUrl).pathname);
    expect(again.body.text).toContain('Done');
    expect(ownerPublishes()).toHaveLength(1);
  });
});
