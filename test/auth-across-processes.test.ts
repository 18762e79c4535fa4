import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './helpers/envelope.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import * as make from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { waitFor } from './helpers/wait.js';

/**
 * Two API processes on one database, each with its own cache of principals. A change to
 * tokens or members committed through one must hold on the other: a write of a revoked
 * token is refused from the revocation's commit on, and a member linked from Slack is seen
 * as linked without waiting out the cache.
 */
const SECRET = 'across-processes-secret';
let fake: FakeSlack;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  fake = await startFakeSlack();
  a = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl });
  b = await startTestServer({ DATABASE_URL: a.database!.url, TACK_BOOTSTRAP_TOKEN: a.token });
});
afterAll(async () => {
  await b?.server.close();
  await a?.close();
  await fake?.close();
});

const todoCount = async () => Number((await a.database!.query('select count(*)::int as n from todos'))[0].n);

describe('revocation across processes', () => {
  it('refuses a write on another process right after the revocation answered 204', async () => {
    for (let round = 0; round < 25; round++) {
      const token = (await a.api('POST', '/v1/tokens', { body: { name: `round ${round}`, scopes: ['read', 'write'] } })).body;
      // B has the principal cached now.
      expect((await b.api('POST', '/v1/todos', { token: token.token, body: { title: 'before' } })).status).toBe(201);
      const before = await todoCount();
      expect((await a.api('DELETE', `/v1/tokens/${token.id}`)).status).toBe(204);
      const late = await b.api('POST', '/v1/todos', { token: token.token, body: { title: `after revocation ${round}` } });
      expectEnvelope(late, 401, 'unauthorized');
      expect(await todoCount()).toBe(before);
    }
  });

  it('applies a demotion to viewer on the next write on another process', async () => {
    const member = await make.member(a, { name: 'Demoted', role: 'member' });
    const token = await make.token(a, { name: 'demoted', scopes: ['read', 'write'], member_id: member.id });
    for (let round = 0; round < 10; round++) {
      expect((await a.api('PATCH', `/v1/members/${member.id}`, { body: { role: 'member' } })).status).toBe(200);
      await waitFor('B to see the member role again', async () => (await b.api('GET', '/v1/me', { token: token.token })).body.member.role === 'member');
      expect((await b.api('POST', '/v1/todos', { token: token.token, body: { title: 'as member' } })).status).toBe(201);
      const before = await todoCount();
      expect((await a.api('PATCH', `/v1/members/${member.id}`, { body: { role: 'viewer' } })).status).toBe(200);
      expectEnvelope(await b.api('POST', '/v1/todos', { token: token.token, body: { title: 'as viewer' } }), 403, 'forbidden_role');
      expect(await todoCount()).toBe(before);
    }
  });
});

describe('linking a Slack user by e-mail', () => {
  it('drops the cached member in this process at once and in the other on the commit', async () => {
    const ana = await make.member(a, { name: 'Ana', email: 'ana@example.com', role: 'member' });
    const token = await make.token(a, { name: 'ana', scopes: ['read', 'write'], member_id: ana.id });
    for (const s of [a, b]) expect((await s.api('GET', '/v1/me', { token: token.token })).body.member.slack_user_id).toBeNull();
    fake.handle('users.info', (call) => ({ body: { ok: true, user: { id: call.body.user, is_email_confirmed: call.body.user === 'U0ANA', profile: call.body.user === 'U0ANA' ? { email: 'Ana@Example.com' } : {} } } }));
    const response_url = fake.responseUrl();
    const path = new URL(response_url).pathname;
    const res = await slackClient(a.url, SECRET).command({ command: '/todo', text: '', response_url, user_id: 'U0ANA' });
    expect(res.status).toBe(200);
    const reply = await fake.waitFor((c) => c.path === path);
    expect(reply.body.text).not.toContain('not linked');
    expect((await a.api('GET', '/v1/me', { token: token.token })).body.member.slack_user_id).toBe('U0ANA');
    // Well within the cache's 60 s: only the NOTIFY of the link's own transaction clears it there.
    await waitFor('the other process to see the link', async () => (await b.api('GET', '/v1/me', { token: token.token })).body.member.slack_user_id === 'U0ANA', {
      timeoutMs: 5_000,
    });
  });
});
