import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { startFakeSlack, type FakeResponse, type FakeSlack } from './helpers/fake-slack.js';
import { startFakeSocket, type FakeSocket } from './helpers/fake-socket.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { blockActionsBody, commandBody, eventBody, slackClient } from './helpers/slack-request.js';
import { spawnTack, type ServingTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';

// The wiring alone (who is asked for a connection, with which token) and that HTTP is off;
// Slack refuses the socket here. Commands over a socket are below.
describe('with SLACK_APP_TOKEN (Socket Mode)', () => {
  let fake: FakeSlack;
  let t: TestServer;
  beforeAll(async () => {
    fake = await startFakeSlack();
    fake.handle('apps.connections.open', { body: { ok: false, error: 'not_allowed_token_type' } });
    t = await startTestServer({ SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'xoxb-test', SLACK_APP_TOKEN: 'xapp-test', SLACK_API_URL: fake.apiUrl });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('asks SLACK_API_URL for a socket with the app token once the server is ready', async () => {
    const call = await fake.waitFor((c) => c.method === 'apps.connections.open');
    expect(call.authorization).toBe('Bearer xapp-test');
  });

  it('serves no /slack/events, and /v1 as usual', async () => {
    const res = await slackClient(t.url, 's').form(commandBody({ command: '/todo', response_url: fake.responseUrl() }));
    expect(res.status).toBe(404);
    expect((await t.api('GET', '/v1/me')).status).toBe(200);
  });
});

/**
 * Socket Mode against a Slack that misbehaves, in a real `tack serve` process (so an
 * unhandled rejection would end it, as in production): apps.connections.open refuses or
 * answers 503 for a while, at start and on reconnect. The socket client keeps Slack's own
 * reconnect policy (tack's Web API options do not reach it), a failed start is tried again,
 * and a rejection nobody handles is logged, never fatal.
 */
describe('Socket Mode when Slack misbehaves', () => {
  let fake: FakeSlack;
  let socket: FakeSocket;
  let database: TestDatabase;
  let tack: ServingTack | undefined;
  // What apps.connections.open answers next; then the socket's URL.
  const answers: FakeResponse[] = [];
  const unavailable: FakeResponse = { status: 503, body: 'Service Unavailable' };
  const unhandled = () => tack!.stdout.filter((l) => l.includes('unhandled promise rejection'));

  beforeAll(async () => {
    fake = await startFakeSlack();
    socket = await startFakeSocket();
    fake.handle('apps.connections.open', () => answers.shift() ?? { body: { ok: true, url: socket.url } });
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await tack?.kill('SIGKILL');
    await socket?.close();
    await fake?.close();
    await database?.drop();
  });

  it('starts even when Slack refuses and then answers 503 for a while', { timeout: 120_000 }, async () => {
    // Refused once (a failed start, tried again by tack), then four 503s (more than a bounded
    // Web API retry policy rides out, fewer than Socket Mode's own).
    answers.push({ body: { ok: false, error: 'invalid_auth' } }, unavailable, unavailable, unavailable, unavailable);
    tack = await spawnTack({ DATABASE_URL: database.url, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_APP_TOKEN: 'xapp-test', SLACK_API_URL: fake.apiUrl, LOG_LEVEL: 'info' });
    await socket.waitForOpened(1, 60_000);
    expect(answers).toEqual([]);
    expect(tack.exit).toBeUndefined();
    expect(tack.stdout.some((l) => l.includes('Slack Socket Mode could not connect; trying again'))).toBe(true);
  });

  it('reconnects through a Slack answering 503 for a while, and the process lives', { timeout: 120_000 }, async () => {
    answers.push(unavailable, unavailable, unavailable, unavailable);
    socket.askToReconnect();
    await socket.waitForOpened(2, 60_000);
    expect(answers).toEqual([]);
    expect(tack!.exit).toBeUndefined();
    expect(unhandled()).toEqual([]);
    expect((await fetch(`${tack!.url}/healthz`)).status).toBe(200);
  });

  it('logs the rejection when Slack refuses a reconnect, and keeps serving', { timeout: 120_000 }, async () => {
    // Slack's client rejects this reconnect with nobody to catch it (a known upstream bug).
    answers.push({ body: { ok: false, error: 'invalid_auth' } });
    socket.askToReconnect();
    await waitFor('the unhandled rejection in the log', () => unhandled().length > 0 || tack!.exit, { timeoutMs: 60_000 });
    expect(tack!.exit).toBeUndefined();
    expect(unhandled()[0]).toContain('invalid_auth');
    expect((await fetch(`${tack!.url}/healthz`)).status).toBe(200);
  });
});

/**
 * A slash command delivered over the socket, as Slack sends it (an envelope of type
 * `slash_commands`): acked on the socket by its envelope id, answered through its
 * response_url, acting once when the same command comes again.
 */
describe('Socket Mode delivers commands', () => {
  const USER = 'U0SOCKET1';
  let fake: FakeSlack;
  let socket: FakeSocket;
  let t: TestServer;
  beforeAll(async () => {
    fake = await startFakeSlack();
    socket = await startFakeSocket();
    fake.handle('apps.connections.open', { body: { ok: true, url: socket.url } });
    t = await startTestServer({ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_APP_TOKEN: 'xapp-test', SLACK_API_URL: fake.apiUrl });
    const me = await t.api('GET', '/v1/me');
    expect((await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: USER } })).status).toBe(200);
    await socket.waitForOpened(1);
  });
  afterAll(async () => {
    await t?.close();
    await socket?.close();
    await fake?.close();
  });

  const envelope = (id: string, command: string, text: string, response_url: string) => ({
    envelope_id: id,
    type: 'slash_commands',
    accepts_response_payload: true,
    payload: Object.fromEntries(new URLSearchParams(commandBody({ command, text, response_url, user_id: USER }))),
  });
  const replyTo = (url: string) => fake.waitFor((c) => c.path === new URL(url).pathname);
  const titles = async () => ((await t.api('GET', '/v1/todos?limit=100')).body.data as { title: string }[]).map((d) => d.title).sort();

  it('acks a command on the socket, answers it through its response_url and acts once on a repeat', async () => {
    const url = fake.responseUrl();
    const first = envelope('env-todo-1', '/todo', 'add Over the socket', url);
    socket.deliver(first);
    expect(await socket.waitForAck('env-todo-1')).toMatchObject({ envelope_id: 'env-todo-1' });
    expect((await replyTo(url)).body.text).toContain('Over the socket');
    expect(await titles()).toEqual(['Over the socket']);

    // The same command again (Slack redelivers an envelope whose ack it missed): acked, dropped.
    socket.deliver({ ...first, envelope_id: 'env-todo-1-again' });
    await socket.waitForAck('env-todo-1-again');
    // A command sent after it is answered; by then the repeat would have acted too.
    const later = fake.responseUrl();
    socket.deliver(envelope('env-todo-2', '/todo', 'add After the repeat', later));
    await socket.waitForAck('env-todo-2');
    await replyTo(later);
    expect(await titles()).toEqual(['After the repeat', 'Over the socket']);
    expect(fake.calls.filter((c) => c.path === new URL(url).pathname)).toHaveLength(1);
  });

  it('acks a Done click on the socket and marks the todo done', async () => {
    const created = await t.api('POST', '/v1/todos', { body: { title: 'Clicked over the socket' } });
    expect(created.status).toBe(201);
    const response_url = fake.responseUrl();
    const form = new URLSearchParams(blockActionsBody({ action_id: 'todo_done', value: created.body.id, response_url, user_id: USER }));
    socket.deliver({ envelope_id: 'env-click-1', type: 'interactive', accepts_response_payload: false, payload: JSON.parse(form.get('payload')!) });
    await socket.waitForAck('env-click-1');
    expect((await replyTo(response_url)).body.text).toContain('Done: Clicked over the socket');
    const done = await t.api('GET', '/v1/todos?done=true');
    expect(done.body.data.find((x: { id: string }) => x.id === created.body.id)?.done).toBe(true);
  });

  it('acts on an event once: a retried envelope (retry_attempt) is acked and dropped', async () => {
    const homeOpened = (user: string) => eventBody({ type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home', event_ts: `${Date.now() / 1000}` });
    const publishedFor = (user: string) => fake.calls.filter((c) => c.method === 'views.publish' && c.body.user_id === user);
    const eventEnvelope = (id: string, payload: unknown, retry = 0) => ({
      envelope_id: id,
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: retry,
      retry_reason: retry > 0 ? 'timeout' : '',
      payload,
    });
    // Users of their own (not linked: their tab says how to link), so no other test's work publishes for them.
    const [first, second] = ['U0SOCKETA', 'U0SOCKETB'];
    const payload = homeOpened(first);
    socket.deliver(eventEnvelope('env-home-1', payload));
    await socket.waitForAck('env-home-1');
    await fake.waitFor((c) => c.method === 'views.publish' && c.body.user_id === first);

    // Slack's retry of the same event, in a new envelope.
    socket.deliver(eventEnvelope('env-home-1-retry', payload, 1));
    await socket.waitForAck('env-home-1-retry');
    // Another event after it is acted on; by then the retry would have been too.
    socket.deliver(eventEnvelope('env-home-2', homeOpened(second)));
    await socket.waitForAck('env-home-2');
    await fake.waitFor((c) => c.method === 'views.publish' && c.body.user_id === second);
    expect(publishedFor(first)).toHaveLength(1);
  });
});
