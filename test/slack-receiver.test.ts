import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { operations } from '../src/operations/index.js';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { captureLog, type CapturedLog } from './helpers/jobs.js';
import * as make from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { spawnTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';
import { blockActionsBody, commandBody, sign, slackClient } from './helpers/slack-request.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const LINKED = 'U2147483697';

let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;
let ownerId: string;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl });
  slack = slackClient(t.url, SECRET);
  const me = await t.api('GET', '/v1/me');
  ownerId = me.body.member.id;
  const linked = await t.api('PATCH', `/v1/members/${ownerId}`, { body: { slack_user_id: LINKED, tz: 'Europe/Lisbon' } });
  expect(linked.status).toBe(200);
  // Once milestones exist (issue 4), subscribing needs a real one.
  if (operations.some((op) => op.name === 'createMilestone')) {
    for (const ref of ['M3', 'M4', 'M5', 'M9']) {
      expect((await t.api('POST', '/v1/milestones', { body: { ref, name: `Milestone ${ref}`, kind: 'sprint' } })).status).toBe(201);
    }
  }
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clear());

const db = () => t.server.db.db;
const subscriptions = () => db().selectFrom('slack_subscriptions').selectAll().orderBy('created_at').execute();
const deliveries = () => db().selectFrom('slack_deliveries').selectAll().execute();

/** The reply posted to a response_url (each test uses its own). */
function replyTo(url: string): Promise<RecordedCall> {
  const path = new URL(url).pathname;
  return fake.waitFor((c) => c.path === path);
}

/**
 * Sends a signed `/milestone help` and waits for its answer: a request sent after others
 * that must do nothing, so that "nothing happened" is read once work sent later is done,
 * not after a fixed wait.
 */
async function answeredHelp(): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  expect((await slack.command({ command: '/milestone', text: 'help', response_url })).status).toBe(200);
  return replyTo(response_url);
}

/** Slack was called once since the test began: with `answer`. */
function expectOnlyAnswered(answer: RecordedCall): void {
  expect(fake.calls).toEqual([answer]);
}

describe('POST /slack/events: authenticity', () => {
  it('refuses a bad signature, a stale or future timestamp and missing headers with 401, and does nothing', async () => {
    const before = { subs: (await subscriptions()).length, deliveries: (await deliveries()).length };
    const response_url = fake.responseUrl();
    const body = commandBody({ command: '/milestone', text: 'M9 subscribe weekly', response_url });
    const now = Math.floor(Date.now() / 1000);
    const attempts = [
      { signature: sign('not-the-secret', now, body) },
      { signature: sign(SECRET, now, `${body}&x=1`) },
      { signature: 'v0=' + '0'.repeat(64) },
      { signature: 'v1=' + sign(SECRET, now, body).slice(3) },
      { timestamp: now - 310 },
      { timestamp: now + 310 },
      { omit: ['x-slack-signature' as const] },
      { omit: ['x-slack-request-timestamp' as const] },
      { omit: ['x-slack-signature' as const, 'x-slack-request-timestamp' as const] },
    ];
    for (const options of attempts) {
      const res = await slack.form(body, options);
      expect(res.status, JSON.stringify(options)).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_slack_signature', http_status: 401 });
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
    // A stale timestamp with a signature that is right for it is still stale.
    const old = now - 6 * 60;
    const replay = await slack.form(body, { timestamp: old, signature: sign(SECRET, old, body) });
    expect(replay.status).toBe(401);

    // A delivery is recorded before its ack, so none was taken in.
    expect((await deliveries()).length).toBe(before.deliveries);
    // And nothing runs after: a signed command sent after them is answered, and it alone.
    expectOnlyAnswered(await answeredHelp());
    expect((await subscriptions()).length).toBe(before.subs);
    expect((await deliveries()).length).toBe(before.deliveries + 1);
  });

  it('accepts a timestamp within five minutes', async () => {
    const response_url = fake.responseUrl();
    const res = await slack.command({ command: '/milestone', text: 'help', response_url }, { timestamp: Math.floor(Date.now() / 1000) - 280 });
    expect(res.status).toBe(200);
    expect((await replyTo(response_url)).body.text).toContain('/milestone &lt;ref&gt; subscribe');
  });

  it('answers url_verification with the challenge', async () => {
    const res = await slack.json({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
  });

  it('refuses an unsigned url_verification', async () => {
    const res = await slack.json({ challenge: 'x', type: 'url_verification' }, { omit: ['x-slack-signature'] });
    expect(res.status).toBe(401);
  });

  it('answers ssl_check with 200 and does nothing', async () => {
    const res = await slack.form('ssl_check=1&token=gIkuvaNzQIHg97ATvDxqgjtO', { omit: ['x-slack-signature', 'x-slack-request-timestamp'] });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expectOnlyAnswered(await answeredHelp());
  });

  it('answers a signed body it cannot read with 400', async () => {
    const res = await slack.json('{"type": "event_callback",');
    expect(res.status).toBe(400);
    const raw = await slack.send('{not json', 'application/json');
    expect(raw.status).toBe(400);
    expect(raw.body.code).toBe('malformed_request');
  });
});

describe('slash commands', () => {
  it('acks at once with an empty 200 and answers through response_url, ephemeral', async () => {
    const response_url = fake.responseUrl();
    const res = await slack.command({ command: '/milestone', text: 'M3 subscribe weekly', response_url, channel_id: 'C0ACK' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const reply = await replyTo(response_url);
    expect(reply.contentType).toContain('application/json');
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.body.text).toBe("This channel now gets M3's status weekly at 09:00 (Europe/Lisbon).");
    const rows = (await subscriptions()).filter((s) => s.channel_id === 'C0ACK');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ milestone_ref: 'M3', cadence: 'weekly', tz: 'Europe/Lisbon', created_by: ownerId, last_sent_period: null });
  });

  it('unsubscribes, and says so when there is nothing to unsubscribe', async () => {
    const first = fake.responseUrl();
    await slack.command({ command: '/milestone', text: 'M5 subscribe', response_url: first, channel_id: 'C0UNSUB' });
    await replyTo(first);
    const second = fake.responseUrl();
    await slack.command({ command: '/milestone', text: 'M5 unsubscribe', response_url: second, channel_id: 'C0UNSUB' });
    expect((await replyTo(second)).body.text).toContain("no longer gets M5's status");
    expect((await subscriptions()).filter((s) => s.channel_id === 'C0UNSUB')).toEqual([]);
    const third = fake.responseUrl();
    await slack.command({ command: '/milestone', text: 'M5 unsubscribe', response_url: third, channel_id: 'C0UNSUB' });
    const reply = await replyTo(third);
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.body.text).toBe('This channel is not subscribed to M5.');
  });

  it('answers a bad command with its usage, ephemeral, and does nothing', async () => {
    const cases = [
      { command: '/milestone', text: '', expect: '/milestone &lt;ref&gt; subscribe' },
      { command: '/milestone', text: 'M3 subscribe hourly', expect: 'Choose daily or weekly.' },
      { command: '/todo', text: 'add !high', expect: 'A todo needs a title.' },
      { command: '/todo', text: 'add pay rent due:someday', expect: 'due:YYYY-MM-DD' },
      { command: '/todo', text: 'frobnicate', expect: '/todo done &lt;id&gt;' },
      { command: '/card', text: 'ENG-1 move sideways', expect: 'is not a status' },
      { command: '/snippet', text: '', expect: '/snippet &lt;slug or id&gt;' },
    ];
    const subsBefore = (await subscriptions()).length;
    for (const c of cases) {
      const response_url = fake.responseUrl();
      const res = await slack.command({ command: c.command, text: c.text, response_url });
      expect(res.status).toBe(200);
      const reply = await replyTo(response_url);
      expect(reply.body.response_type, c.text).toBe('ephemeral');
      expect(reply.body.text, c.text).toContain(c.expect);
    }
    expect((await subscriptions()).length).toBe(subsBefore);
  });

  it("gives a domain error's user_message, ephemeral (a viewer cannot subscribe)", async () => {
    await make.member(t, { name: 'Vera', role: 'viewer', slack_user_id: 'U0VIEWER' });
    const response_url = fake.responseUrl();
    await slack.command({ command: '/milestone', text: 'M3 subscribe', response_url, user_id: 'U0VIEWER', channel_id: 'C0VIEW' });
    const reply = await replyTo(response_url);
    expect(reply.body).toMatchObject({ response_type: 'ephemeral', text: 'Viewers can read but not change anything.' });
    expect((await subscriptions()).filter((s) => s.channel_id === 'C0VIEW')).toEqual([]);
  });
});

describe('member linking', () => {
  it('tells an unknown Slack user how to link, and does nothing', async () => {
    const response_url = fake.responseUrl();
    const res = await slack.command({ command: '/milestone', text: 'M3 subscribe weekly', response_url, user_id: 'U0STRANGER', channel_id: 'C0STRANGE' });
    expect(res.status).toBe(200);
    const reply = await replyTo(response_url);
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.body.text).toContain('not linked to a tack member');
    expect(reply.body.text).toContain('slack_user_id');
    expect(reply.body.text).toContain('U0STRANGER');
    // The profile was looked up (for an e-mail to link by), with the bot token.
    const lookup = fake.callsTo('users.info');
    expect(lookup).toHaveLength(1);
    expect(lookup[0]!.body.user).toBe('U0STRANGER');
    expect(lookup[0]!.authorization).toBe('Bearer xoxb-test');
    expect((await subscriptions()).filter((s) => s.channel_id === 'C0STRANGE')).toEqual([]);
    const members = await t.api('GET', '/v1/members?limit=100');
    expect(members.body.data.some((m: { slack_user_id: string | null }) => m.slack_user_id === 'U0STRANGER')).toBe(false);
  });

  it('links on first use by the Slack profile e-mail (users.info, confirmed), then acts as that member', async () => {
    const ana = await make.member(t, { name: 'Ana', email: 'Ana@Example.com', role: 'member' });
    fake.handle('users.info', (call) =>
      call.body.user === 'U0ANA'
        ? { body: { ok: true, user: { id: 'U0ANA', tz: 'Europe/Berlin', is_email_confirmed: true, profile: { email: 'ana@example.com', real_name: 'Ana' } } } }
        : { body: { ok: true, user: { id: call.body.user, profile: {} } } },
    );
    try {
      const response_url = fake.responseUrl();
      await slack.command({ command: '/milestone', text: 'M4 subscribe daily', response_url, user_id: 'U0ANA', channel_id: 'C0ANA' });
      const reply = await replyTo(response_url);
      expect(reply.body.text).toContain("M4's status daily");
      const member = (await t.api('GET', '/v1/members?limit=100')).body.data.find((m: { id: string }) => m.id === ana.id);
      expect(member.slack_user_id).toBe('U0ANA');
      const rows = (await subscriptions()).filter((s) => s.channel_id === 'C0ANA');
      // Ana has no tz of her own: her Slack profile's is used.
      expect(rows).toMatchObject([{ created_by: ana.id, cadence: 'daily', tz: 'Europe/Berlin' }]);

      // Linked now: the next command finds her by Slack id without asking Slack.
      fake.clear();
      const next = fake.responseUrl();
      await slack.command({ command: '/milestone', text: 'M4 unsubscribe', response_url: next, user_id: 'U0ANA', channel_id: 'C0ANA' });
      await replyTo(next);
      expect(fake.callsTo('users.info')).toEqual([]);
    } finally {
      fake.handle('users.info', (call) => ({ body: { ok: true, user: { id: call.body.user, profile: {} } } }));
    }
  });

  it('never takes over a member already linked to another Slack user', async () => {
    await make.member(t, { name: 'Bo', email: 'bo@example.com', slack_user_id: 'U0BO' });
    fake.handleOnce('users.info', { body: { ok: true, user: { id: 'U0IMPOSTOR', is_email_confirmed: true, profile: { email: 'bo@example.com' } } } });
    const response_url = fake.responseUrl();
    await slack.command({ command: '/milestone', text: 'M3 subscribe', response_url, user_id: 'U0IMPOSTOR', channel_id: 'C0IMP' });
    expect((await replyTo(response_url)).body.text).toContain('not linked');
    expect((await subscriptions()).filter((s) => s.channel_id === 'C0IMP')).toEqual([]);
  });

  it('treats a users.info failure (missing scope) as unknown', async () => {
    fake.handleOnce('users.info', { body: { ok: false, error: 'missing_scope', needed: 'users:read.email' } });
    const response_url = fake.responseUrl();
    await slack.command({ command: '/milestone', text: 'M3 subscribe', response_url, user_id: 'U0NOSCOPE', channel_id: 'C0NOSCOPE' });
    expect((await replyTo(response_url)).body.text).toContain('not linked');
  });

  it('waits out a 429 from users.info (Retry-After) and still links', async () => {
    await make.member(t, { name: 'Cy', email: 'cy@example.com' });
    fake.handleOnce('users.info', { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } });
    fake.handleOnce('users.info', { body: { ok: true, user: { id: 'U0CY', is_email_confirmed: true, profile: { email: 'cy@example.com' } } } });
    const response_url = fake.responseUrl();
    await slack.command({ command: '/milestone', text: 'M3 subscribe', response_url, user_id: 'U0CY', channel_id: 'C0CY' });
    const reply = await replyTo(response_url);
    expect(reply.body.text).toContain("M3's status weekly");
    expect(fake.callsTo('users.info')).toHaveLength(2);
  });
});

describe('interactivity', () => {
  it('tells an unknown user how to link on a Done click, without touching the message', async () => {
    const response_url = fake.responseUrl();
    const res = await slack.click({ action_id: 'todo_done', value: 'todo_abc', response_url, user_id: 'U0CLICKER' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const reply = await replyTo(response_url);
    expect(reply.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(reply.body.text).toContain('not linked');
  });
});

describe('retried deliveries', () => {
  // Each check runs on a server of its own over the test's database, and closes it before
  // looking: closing waits for the work every delivery started, so "it did not act" is
  // known, not waited for.
  const serve = (log?: CapturedLog) =>
    startTestServer(
      { SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl, DATABASE_URL: t.database!.url },
      log ? { log: log.log } : {},
    );
  const todosTitled = async (title: string) =>
    ((await t.api('GET', '/v1/todos?limit=100')).body.data as { id: string; title: string }[]).filter((x) => x.title === title);
  const repliesTo = (url: string) => fake.calls.filter((c) => c.path === new URL(url).pathname);
  const retry = (n: number) => ({ headers: { 'x-slack-retry-num': String(n), 'x-slack-retry-reason': 'http_timeout' } });

  it('acts once on a retried command (X-Slack-Retry-Num), and again on a new invocation', async () => {
    const response_url = fake.responseUrl();
    const body = commandBody({ command: '/todo', text: 'add Retried once', response_url, user_id: LINKED });
    const app = await serve();
    try {
      const client = slackClient(app.url, SECRET);
      expect((await client.form(body)).status).toBe(200);
      await replyTo(response_url);
      expect((await client.form(body, retry(1))).status).toBe(200);
      expect((await client.form(body, retry(2))).status).toBe(200);
    } finally {
      await app.close();
    }
    expect(repliesTo(response_url)).toHaveLength(1);
    expect(await todosTitled('Retried once')).toHaveLength(1);

    // A new invocation of the same command (a new trigger) does act.
    const next = fake.responseUrl();
    await slack.command({ command: '/todo', text: 'add Retried once', response_url: next, user_id: LINKED });
    await replyTo(next);
    expect(await todosTitled('Retried once')).toHaveLength(2);
  });

  it('remembers deliveries in the database: a retry reaching a restarted app does not act', { timeout: 120_000 }, async () => {
    const response_url = fake.responseUrl();
    const body = commandBody({ command: '/todo', text: 'add Across a restart', response_url, user_id: LINKED });
    const first = await serve();
    try {
      expect((await slackClient(first.url, SECRET).form(body)).status).toBe(200);
      await replyTo(response_url);
    } finally {
      await first.close();
    }
    expect((await deliveries()).filter((d) => d.kind === 'command').length).toBeGreaterThan(0);
    // A new process: nothing of the first one's memory survives.
    const restarted = await spawnTack({ DATABASE_URL: t.database!.url, SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl });
    try {
      expect((await slackClient(restarted.url, SECRET).form(body, retry(1))).status).toBe(200);
    } finally {
      // SIGTERM: the server finishes what its deliveries started before it exits.
      expect((await restarted.kill('SIGTERM')).code).toBe(0);
    }
    expect(repliesTo(response_url)).toHaveLength(1);
    expect(await todosTitled('Across a restart')).toHaveLength(1);
  });

  it('acts once on the same command and the same event delivered twice at once, neither marked a retry', async () => {
    const response_url = fake.responseUrl();
    const body = commandBody({ command: '/todo', text: 'add Delivered twice', response_url, user_id: LINKED });
    const event = {
      token: 'XXYYZZ',
      team_id: 'T0001',
      api_app_id: 'A123456',
      event: { type: 'app_mention', user: LINKED, text: '<@UBOT> hi', ts: '1515449522.000017', channel: 'C0001', event_ts: '1515449522000017' },
      type: 'event_callback',
      event_id: 'Ev0TESTTWICE',
      event_time: 1515449522,
    };
    const captured = captureLog('info');
    const app = await serve(captured);
    try {
      const client = slackClient(app.url, SECRET);
      // Whichever of each pair is handled second is the repeat, even with no X-Slack-Retry-Num.
      const acks = await Promise.all([client.form(body), client.form(body), client.json(event), client.json(event)]);
      expect(acks.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      await replyTo(response_url);
      await waitFor('both repeats to be dropped', () => captured.lines().filter((l) => String(l.msg).includes('already handled; dropped')).length === 2);
    } finally {
      await app.close();
    }
    expect(repliesTo(response_url)).toHaveLength(1);
    expect(await todosTitled('Delivered twice')).toHaveLength(1);
    const dropped = captured.lines().filter((l) => String(l.msg).includes('already handled; dropped'));
    expect(dropped.map((l) => String(l.identity).split(':')[0]).sort()).toEqual(['command', 'event']);
  });

  it('acts once on a retried click', async () => {
    const created = await t.api('POST', '/v1/todos', { body: { title: 'Clicked twice' } });
    const response_url = fake.responseUrl();
    const body = blockActionsBody({ action_id: 'todo_done', value: created.body.id, response_url, user_id: LINKED });
    const app = await serve();
    try {
      const client = slackClient(app.url, SECRET);
      await client.form(body);
      await replyTo(response_url);
      await client.form(body, retry(1));
    } finally {
      await app.close();
    }
    expect(repliesTo(response_url)).toHaveLength(1);
  });

  it('acks an event callback and drops its retries', async () => {
    const event = {
      token: 'XXYYZZ',
      team_id: 'T0001',
      api_app_id: 'A123456',
      event: { type: 'app_mention', user: 'U2147483697', text: '<@UBOT> hi', ts: '1515449522.000016', channel: 'C0001', event_ts: '1515449522000016' },
      type: 'event_callback',
      event_id: 'Ev0TESTRETRY',
      event_time: 1515449522,
      authorizations: [{ enterprise_id: null, team_id: 'T0001', user_id: 'UBOT', is_bot: true, is_enterprise_install: false }],
    };
    const captured = captureLog('info');
    const app = await serve(captured);
    try {
      const client = slackClient(app.url, SECRET);
      expect((await client.json(event)).status).toBe(200);
      // Acked before its middleware runs: the retry is sent once the first delivery is recorded,
      // as Slack's retry comes seconds later (sent at once, the retry's middleware could run first).
      await waitFor('the first delivery recorded', async () => (await deliveries()).some((d) => d.identity === 'event:Ev0TESTRETRY'));
      expect((await client.json(event, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_error' } })).status).toBe(200);
      // An event is acked before its middleware runs: the retry is recognised after its ack.
      // No listener acts on app_mention; what shows the retry was recognised is that it was dropped.
      await waitFor('the retry to be dropped', () => captured.lines().some((l) => String(l.msg).includes('already handled; dropped')));
    } finally {
      await app.close();
    }
    expect((await deliveries()).filter((d) => d.identity === 'event:Ev0TESTRETRY')).toHaveLength(1);
    const dropped = captured.lines().filter((l) => String(l.msg).includes('already handled; dropped'));
    expect(dropped).toMatchObject([{ identity: 'event:Ev0TESTRETRY', retry: 1 }]);
  });
});

describe('the rest of the server with Slack configured', () => {
  it('still parses /v1 JSON as before', async () => {
    const ok = await t.api('POST', '/v1/members', { body: { name: 'Json Person' } });
    expect(ok.status).toBe(201);
    const bad = await t.api('POST', '/v1/members', { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('malformed_request');
    const form = await t.api('POST', '/v1/members', { raw: 'name=Form', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
  });

  it('answers other methods on /slack/events with the 404 envelope and leaves it out of OpenAPI', async () => {
    const res = await fetch(`${t.url}/slack/events`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe('not_found');
    const doc = await t.api('GET', '/v1/openapi.json');
    expect(Object.keys(doc.body.paths).some((p) => p.includes('slack'))).toBe(false);
  });
});

describe('without Slack variables', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startTestServer({ SLACK_SIGNING_SECRET: SECRET });
  });
  afterAll(async () => plain?.close());

  it('answers /slack/events with the ordinary 404 envelope', async () => {
    const body = commandBody({ command: '/milestone', text: 'M3 subscribe', response_url: fake.responseUrl() });
    const res = await slackClient(plain.url, SECRET).form(body);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', http_status: 404 });
    const json = await slackClient(plain.url, SECRET).json({ type: 'url_verification', challenge: 'c' });
    expect(json.status).toBe(404);
    // Without Slack configured nothing was taken in: no delivery recorded (that comes before any ack).
    expect(await plain.server.db.db.selectFrom('slack_deliveries').select('identity').execute()).toEqual([]);
    expect((await plain.api('GET', '/v1/me')).status).toBe(200);
  });
});
