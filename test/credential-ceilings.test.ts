import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './helpers/envelope.js';
import { member, token, type Fields, type Role, type Scope } from './helpers/factories.js';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { waitFor } from './helpers/wait.js';
import { browser, codeOf, postSignin, sessionCookieOf, signIn, type Browser } from './helpers/web.js';
import { connectMcp } from './helpers/mcp-http.js';

/**
 * Contract §9: a credential never carries more than what made it, over time and across faces
 * (a bearer token, a web session, Slack, MCP), and across two processes on one database.
 * Each escalation of issue 27 (items 1 to 5, 7) is tried end to end here and refused.
 */
const SECRET = 'credential-ceilings-secret';
let fake: FakeSlack;
let t: TestServer;
let other: TestServer;
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
let ownerId: string;
const clients: Client[] = [];

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl }, { clock });
  // A second API process on the same database, with a cache of principals of its own.
  other = await startTestServer({ DATABASE_URL: t.database!.url, TACK_BOOTSTRAP_TOKEN: t.token }, { clock });
  ownerId = (await t.api('GET', '/v1/me')).body.member.id;
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await other?.server.close();
  await t?.close();
  await fake?.close();
});

let n = 0;
async function newMember(role: Role, fields: Partial<Fields<'/members'>> = {}): Promise<string> {
  n++;
  return (await member(t, { name: `${role} ${n}`, role, ...fields })).id;
}

interface Made {
  id: string;
  token: string;
  expires_at: string | null;
}

/** A token for `memberId`, made with `maker` (the owner's by default). */
async function tokenFor(memberId: string, body: Partial<Fields<'/tokens'>>, maker: string = t.token): Promise<Made> {
  return token(t, { name: `token ${++n}`, scopes: ['read'], member_id: memberId, ...body }, { as: maker });
}

/** A browser signed in with a link that `session` made (for itself, or for `memberId`). */
async function signInFromSession(session: Browser, memberId: string): Promise<Browser> {
  const link = await session.request('POST', `/v1/members/${memberId}/signin-links`);
  expect(link.status, link.text).toBe(201);
  const res = await postSignin(t, codeOf(link.body.url));
  expect(res.status).toBe(303);
  return browser(t, sessionCookieOf(res)!);
}

const todoCount = async () => Number((await t.database!.query('select count(*)::int as n from todos'))[0].n);

async function mcpClient(token: string): Promise<Client> {
  const client = await connectMcp(t.url, token);
  clients.push(client);
  return client;
}

/** A slash command from a Slack user, and the reply it gets at its response_url. */
async function slash(command: string, text: string, user: string): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  const res = await slackClient(t.url, SECRET).command({ command, text, response_url, user_id: user });
  expect(res.status).toBe(200);
  const path = new URL(response_url).pathname;
  return fake.waitFor((c) => c.path === path);
}

describe('a session from a sign-in link that a token asked for (item 1)', () => {
  it("gets at most the token's scopes, and neither it nor its links nor its tokens outlive the token's expiry", async () => {
    const adminId = await newMember('admin');
    const expires = new Date(clock().getTime() + 60 * 60_000).toISOString();
    const narrow = await tokenFor(adminId, { scopes: ['read', 'write'], expires_at: expires });
    const session = await signIn(t, adminId, narrow.token);
    expect((await session.request('GET', '/v1/me')).body).toMatchObject({ member: { id: adminId, role: 'admin' }, role: 'admin', scopes: ['read', 'write'], agent: false });

    // The escalation: the session minting a full-scope token without expiry.
    expectEnvelope(await session.request('POST', '/v1/tokens', { body: { name: 'full', scopes: ['read', 'write', 'config:write'] } }), 403, 'insufficient_scope');
    expectEnvelope(await session.request('POST', '/v1/boards', { body: { name: 'Not with this session' } }), 403, 'insufficient_scope');
    const minted = await session.request('POST', '/v1/tokens', { body: { name: 'minted', scopes: ['read', 'write'] } });
    expect(minted.status, minted.text).toBe(201);
    expect(minted.body.expires_at).toBe(expires);
    const later = new Date(clock().getTime() + 2 * 60 * 60_000).toISOString();
    const tooLate = await session.request('POST', '/v1/tokens', { body: { name: 'later', scopes: ['read'], expires_at: later } });
    expectEnvelope(tooLate, 422, 'validation_failed');
    expect(tooLate.body.errors).toEqual([expect.objectContaining({ field: 'expires_at', code: 'after_caller_expires' })]);
    // The token itself cannot either.
    const direct = await t.api('POST', '/v1/tokens', { token: narrow.token, body: { name: 'direct', scopes: ['read'] } });
    expect(direct.body.expires_at).toBe(expires);

    // A link the session makes gives what the session has.
    const second = await signInFromSession(session, adminId);
    expect((await second.request('GET', '/v1/me')).body).toMatchObject({ role: 'admin', scopes: ['read', 'write'] });
    expect(Date.parse((await second.request('GET', '/v1/sessions')).body.data[0].expires_at)).toBe(Date.parse(expires));
  });

  it('ends when that token is revoked: 401 on the next request, here and in another process, with every session it led to', async () => {
    const memberId = await newMember('member');
    const token = await tokenFor(memberId, { scopes: ['read', 'write'] });
    const session = await signIn(t, memberId, token.token);
    const fromSession = await signInFromSession(session, memberId);
    const unused = (await t.api('POST', `/v1/members/${memberId}/signin-links`, { token: token.token })).body.url;
    const elsewhere = browser(other, session.cookie);
    expect((await elsewhere.request('GET', '/v1/me')).status).toBe(200); // cached there now
    expect((await session.request('POST', '/v1/todos', { body: { title: 'before' } })).status).toBe(201);

    const before = await todoCount();
    expect((await t.api('DELETE', `/v1/tokens/${token.id}`)).status).toBe(204);
    // The other process still has the session cached, yet its write re-reads it in its transaction.
    expectEnvelope(await elsewhere.request('POST', '/v1/todos', { body: { title: 'after the revocation' } }), 401, 'unauthorized');
    expect(await todoCount()).toBe(before);
    expectEnvelope(await session.request('GET', '/v1/me'), 401, 'unauthorized');
    expectEnvelope(await fromSession.request('GET', '/v1/me'), 401, 'unauthorized');
    await waitFor('the other process to refuse the session on a read', async () => (await elsewhere.request('GET', '/v1/me')).status === 401);
    // A link the token asked for before signs nobody in now.
    expect((await postSignin(t, codeOf(unused), { json: true })).status).toBe(400);
    // The member's own sessions from elsewhere are untouched, and the dead ones are not listed.
    const own = await signIn(t, memberId);
    expect((await own.request('GET', '/v1/sessions')).body.data.map((s: { current: boolean }) => s.current)).toEqual([true]);
  });

  it('ends when that token expires, cached or not, and its unused links stop working', async () => {
    const memberId = await newMember('member');
    const token = await tokenFor(memberId, { scopes: ['read', 'write'], expires_at: new Date(clock().getTime() + 10 * 60_000).toISOString() });
    const session = await signIn(t, memberId, token.token);
    const unused = (await t.api('POST', `/v1/members/${memberId}/signin-links`, { token: token.token })).body.url;
    const elsewhere = browser(other, session.cookie);
    expect((await session.request('GET', '/v1/me')).status).toBe(200);
    expect((await elsewhere.request('GET', '/v1/me')).status).toBe(200);
    try {
      offsetMs = 11 * 60_000; // the token has expired; the link's own 15 minutes have not
      expectEnvelope(await session.request('GET', '/v1/me'), 401, 'unauthorized');
      expectEnvelope(await elsewhere.request('GET', '/v1/me'), 401, 'unauthorized');
      expectEnvelope(await elsewhere.request('POST', '/v1/todos', { body: { title: 'expired' } }), 401, 'unauthorized');
      expect((await fetch(unused)).status).toBe(400);
      expect((await postSignin(t, codeOf(unused), { json: true })).status).toBe(400);
    } finally {
      offsetMs = 0;
    }
  });
});

describe('the first start link', () => {
  let fresh: TestServer;
  const printed: string[] = [];
  beforeAll(async () => {
    fresh = await startTestServer({}, { print: (line) => printed.push(line) });
  });
  afterAll(async () => fresh?.close());

  it("gives what the owner token has, and ends with it", async () => {
    const url = printed.join(' ').split(' ').find((w) => w.includes('/signin?code='))!;
    const res = await postSignin(fresh, codeOf(url));
    expect(res.status).toBe(303);
    const session = browser(fresh, sessionCookieOf(res)!);
    expect((await session.request('GET', '/v1/me')).body).toMatchObject({ role: 'owner', scopes: ['read', 'write', 'replay', 'config:write'] });
    const ownerToken = (await fresh.api('GET', '/v1/tokens')).body.data.find((tok: { name: string }) => tok.name === 'bootstrap owner token');
    expect((await session.request('DELETE', `/v1/tokens/${ownerToken.id}`)).status).toBe(204);
    expectEnvelope(await session.request('GET', '/v1/me'), 401, 'unauthorized');
  });
});

describe("a token or sign-in link made for another member (item 2)", () => {
  it("acts with the maker's role as a ceiling after a promotion, through a token and a session, in both processes", async () => {
    const adminId = await newMember('admin');
    const adminToken = await tokenFor(adminId, { scopes: ['read', 'write', 'config:write'] });
    const peerAdmin = await newMember('admin');
    const miaId = await newMember('member');
    const full: Scope[] = ['read', 'write', 'config:write'];
    const byAdmin = await tokenFor(miaId, { scopes: full }, adminToken.token);
    const byOwner = await tokenFor(miaId, { scopes: full });
    const adminLinked = await signIn(t, miaId, adminToken.token);
    // Cached in the other process while Mia is a member.
    expect((await other.api('GET', '/v1/me', { token: byAdmin.token })).body.role).toBe('member');
    expect((await browser(other, adminLinked.cookie).request('GET', '/v1/me')).body.role).toBe('member');

    expect((await t.api('PATCH', `/v1/members/${miaId}`, { body: { role: 'owner' } })).status).toBe(200);

    // What an owner may do and an admin may not: give the owner role, touch an owner, mint for one.
    const ownerActs = (call: (method: string, path: string, body: unknown) => Promise<any>) => [
      call('PATCH', `/v1/members/${peerAdmin}`, { role: 'owner' }),
      call('PATCH', `/v1/members/${ownerId}`, { name: 'Renamed by a capped token' }),
      call('POST', '/v1/tokens', { name: 'for the owner', scopes: ['read'], member_id: ownerId }),
      call('POST', `/v1/members/${ownerId}/signin-links`, undefined),
    ];
    for (const server of [t, other]) {
      const capped = browser(server, adminLinked.cookie);
      const callers = [
        (method: string, path: string, body: unknown) => server.api(method, path, { token: byAdmin.token, body }),
        (method: string, path: string, body: unknown) => capped.request(method, path, { body }),
      ];
      for (const call of callers) {
        for (const res of await Promise.all(ownerActs(call))) expectEnvelope(res, 403, 'forbidden_role');
      }
      await waitFor('the promotion to be seen', async () => (await server.api('GET', '/v1/me', { token: byAdmin.token })).body.member.role === 'owner');
      expect((await server.api('GET', '/v1/me', { token: byAdmin.token })).body).toMatchObject({ member: { role: 'owner' }, role: 'admin' });
      expect((await capped.request('GET', '/v1/me')).body).toMatchObject({ member: { role: 'owner' }, role: 'admin', scopes: full });
    }
    expect((await t.api('GET', `/v1/members?limit=100`)).body.data.find((m: { id: string }) => m.id === ownerId).name).not.toMatch(/capped/);
    expect((await t.api('GET', `/v1/members?limit=100`)).body.data.find((m: { id: string }) => m.id === peerAdmin).role).toBe('admin');

    // What the capped credentials make for Mia herself keeps the ceiling.
    const mintedByCapped = await tokenFor(miaId, { scopes: ['read', 'config:write'] }, byAdmin.token);
    expect((await t.api('GET', '/v1/me', { token: mintedByCapped.token })).body.role).toBe('admin');
    const sessionFromCapped = await signInFromSession(adminLinked, miaId);
    expect((await sessionFromCapped.request('GET', '/v1/me')).body.role).toBe('admin');

    // One's own credentials, and those an owner made, follow the member's current role.
    expect((await t.api('GET', '/v1/me', { token: byOwner.token })).body.role).toBe('owner');
    const own = await tokenFor(miaId, { scopes: ['read'] }, byOwner.token);
    expect((await t.api('GET', '/v1/me', { token: own.token })).body.role).toBe('owner');
    expect((await t.api('PATCH', `/v1/members/${ownerId}`, { token: byOwner.token, body: { tz: 'Europe/Paris' } })).status).toBe(200);
    // A demotion below the ceiling applies to every one of them.
    expect((await t.api('PATCH', `/v1/members/${miaId}`, { body: { role: 'viewer' } })).status).toBe(200);
    expectEnvelope(await t.api('POST', '/v1/todos', { token: byAdmin.token, body: { title: 'as viewer' } }), 403, 'forbidden_role');
    expect((await adminLinked.request('GET', '/v1/me')).body).toMatchObject({ role: 'viewer', scopes: ['read'] });
  });
});

describe('acts only a person may do (items 3 and 4)', () => {
  it("refuses an agent a member's Slack user or e-mail, its own included, so Slack never takes anyone for it", async () => {
    const adminId = await newMember('admin');
    const full: Scope[] = ['read', 'write', 'config:write'];
    const agent = await tokenFor(adminId, { scopes: full, agent: true });
    const human = await tokenFor(adminId, { scopes: full });
    const miaId = await newMember('member');
    const members = async () => Number((await t.database!.query('select count(*)::int as n from members'))[0].n);
    const count = await members();
    const refusals = [
      await t.api('PATCH', `/v1/members/${adminId}`, { token: agent.token, body: { slack_user_id: 'U0AGENT' } }),
      await t.api('PATCH', `/v1/members/${adminId}`, { token: agent.token, body: { email: 'agent@example.com' } }),
      await t.api('PATCH', `/v1/members/${miaId}`, { token: agent.token, body: { slack_user_id: 'U0AGENT' } }),
      await t.api('PATCH', `/v1/members/${miaId}`, { token: agent.token, body: { email: 'agent@example.com', name: 'Mia' } }),
      await t.api('POST', '/v1/members', { token: agent.token, body: { name: 'Puppet', role: 'admin', slack_user_id: 'U0AGENT' } }),
      await t.api('POST', '/v1/members', { token: agent.token, body: { name: 'Puppet', role: 'admin', email: 'agent@example.com' } }),
    ];
    for (const res of refusals) expectEnvelope(res, 403, 'requires_human');
    expect(await members()).toBe(count);
    const mcp = await mcpClient(agent.token);
    const viaMcp = (await mcp.callTool({ name: 'updateMember', arguments: { id: adminId, slack_user_id: 'U0AGENT' } })) as CallToolResult;
    expect(viaMcp.isError).toBe(true);
    expect(JSON.stringify(viaMcp.content)).toContain('requires_human');
    expect((await t.api('GET', '/v1/me', { token: agent.token })).body.member).toMatchObject({ slack_user_id: null, email: null });

    // In Slack, that user is still nobody: no card moves, no sign-in link (whose session would be human).
    fake.handle('users.info', (call) => ({ body: { ok: true, user: { id: call.body.user, profile: { email: 'agent@example.com' }, is_email_confirmed: true } } }));
    await t.api('POST', '/v1/boards', { body: { name: 'Human gate', slug: 'human-gate', ref_prefix: 'HG', gated: true } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'human-gate', title: 'Ship it' } })).body;
    await slash('/card', `${card.ref} move done`, 'U0AGENT');
    const login = await slash('/tack', 'login', 'U0AGENT');
    expect(JSON.stringify(login.body)).not.toContain('/signin?code=');
    expect((await t.api('GET', `/v1/cards/${card.ref}`)).body.workflow_status).toBe('backlog');

    // What an agent may still do, and what a person may.
    expect((await t.api('PATCH', `/v1/members/${adminId}`, { token: agent.token, body: { name: 'Renamed by its agent', email: null } })).status).toBe(200);
    expect((await t.api('POST', '/v1/members', { token: agent.token, body: { name: 'No identity', role: 'member' } })).status).toBe(201);
    expect((await t.api('PATCH', `/v1/members/${adminId}`, { token: human.token, body: { slack_user_id: 'U0HUMAN' } })).status).toBe(200);
    expect(JSON.stringify((await slash('/tack', 'login', 'U0HUMAN')).body)).toContain('/signin?code=');
    // Unlinking is a person's act too.
    expectEnvelope(await t.api('PATCH', `/v1/members/${adminId}`, { token: agent.token, body: { slack_user_id: null } }), 403, 'requires_human');
  });

  it("refuses an agent with config:write a change of a board's gate, so it cannot ungate, move to done and gate again", async () => {
    const adminId = await newMember('admin');
    const agent = await tokenFor(adminId, { scopes: ['read', 'write', 'config:write'], agent: true });
    await t.api('POST', '/v1/boards', { body: { name: 'Gated ops', slug: 'gated-ops', ref_prefix: 'GOP', gated: true } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'gated-ops', title: 'Release' } })).body;
    expectEnvelope(await t.api('PATCH', '/v1/boards/gated-ops', { token: agent.token, body: { gated: false } }), 403, 'requires_human');
    const mcp = await mcpClient(agent.token);
    const viaMcp = (await mcp.callTool({ name: 'updateBoard', arguments: { id: 'gated-ops', gated: false } })) as CallToolResult;
    expect(viaMcp.isError).toBe(true);
    expect(JSON.stringify(viaMcp.content)).toContain('requires_human');
    expect((await t.api('GET', '/v1/boards/gated-ops')).body.gated).toBe(true);
    expectEnvelope(await t.api('PATCH', `/v1/cards/${card.ref}`, { token: agent.token, body: { workflow_status: 'done' } }), 403, 'gated_move_requires_human');
    expect((await t.api('GET', `/v1/cards/${card.ref}`)).body.workflow_status).toBe('backlog');
    // Its other config:write changes go through, and a gate sent unchanged changes nothing.
    expect((await t.api('PATCH', '/v1/boards/gated-ops', { token: agent.token, body: { name: 'Gated ops (renamed)', gated: true } })).status).toBe(200);
    // A person may change it, from a token or a web session.
    const session = await signIn(t);
    expect((await session.request('PATCH', '/v1/boards/gated-ops', { body: { gated: false } })).body.gated).toBe(false);
    expect((await t.api('PATCH', '/v1/boards/gated-ops', { body: { gated: true } })).body.gated).toBe(true);
  });
});

describe('ending things (item 5)', () => {
  it("keeps the ladder: an admin neither revokes an owner's token nor ends an owner's session, by token or session", async () => {
    const adminId = await newMember('admin');
    const adminToken = await tokenFor(adminId, { scopes: ['read', 'write', 'config:write'] });
    const adminSession = await signIn(t, adminId, adminToken.token);
    const ownerExtra = await tokenFor(ownerId, { scopes: ['read'] });
    const ownerSession = await signIn(t);
    const ownerSessionId = (await ownerSession.request('GET', '/v1/sessions')).body.data.find((s: { current: boolean }) => s.current).id;

    expectEnvelope(await t.api('DELETE', `/v1/tokens/${ownerExtra.id}`, { token: adminToken.token }), 403, 'forbidden_role');
    expectEnvelope(await adminSession.request('DELETE', `/v1/tokens/${ownerExtra.id}`), 403, 'forbidden_role');
    expectEnvelope(await t.api('DELETE', `/v1/sessions/${ownerSessionId}`, { token: adminToken.token }), 403, 'forbidden_role');
    expectEnvelope(await adminSession.request('DELETE', `/v1/sessions/${ownerSessionId}`), 403, 'forbidden_role');
    expect((await t.api('GET', '/v1/me', { token: ownerExtra.token })).status).toBe(200);
    expect((await ownerSession.request('GET', '/v1/me')).status).toBe(200);
    expect((await t.database!.query('select revoked_at from tokens where id = $1', [ownerExtra.id]))[0].revoked_at).toBeNull();

    // Down the ladder it may: a member's token and session.
    const memberId = await newMember('member');
    const memberToken = await tokenFor(memberId, { scopes: ['read', 'write'] });
    const memberSession = await signIn(t, memberId);
    const memberSessionId = (await memberSession.request('GET', '/v1/sessions')).body.data[0].id;
    expect((await adminSession.request('DELETE', `/v1/tokens/${memberToken.id}`)).status).toBe(204);
    expect((await t.api('DELETE', `/v1/sessions/${memberSessionId}`, { token: adminToken.token })).status).toBe(204);
    expectEnvelope(await t.api('GET', '/v1/me', { token: memberToken.token }), 401, 'unauthorized');
    expectEnvelope(await memberSession.request('GET', '/v1/me'), 401, 'unauthorized');
    // A member ends nobody else's: another's token is refused, another's session is not theirs to see.
    const plainId = await newMember('member');
    const plain = await tokenFor(plainId, { scopes: ['read', 'write'] });
    expectEnvelope(await t.api('DELETE', `/v1/tokens/${adminToken.id}`, { token: plain.token }), 403, 'insufficient_scope');
    expectEnvelope(await t.api('DELETE', `/v1/sessions/${ownerSessionId}`, { token: plain.token }), 404, 'session_not_found');
  });

  it('lets everyone, viewers and one-scope tokens included, revoke their own tokens and end their own sessions', async () => {
    const viewerId = await newMember('viewer');
    const first = await tokenFor(viewerId, { scopes: ['read'] });
    const second = await tokenFor(viewerId, { scopes: ['read'] });
    expect((await t.api('DELETE', `/v1/tokens/${second.id}`, { token: first.token })).status).toBe(204);
    expectEnvelope(await t.api('GET', '/v1/me', { token: second.token }), 401, 'unauthorized');
    expect((await t.api('DELETE', `/v1/tokens/${first.id}`, { token: first.token })).status).toBe(204);
    expectEnvelope(await t.api('GET', '/v1/me', { token: first.token }), 401, 'unauthorized');
    // Over MCP too.
    const third = await tokenFor(viewerId, { scopes: ['read'] });
    const mcp = await mcpClient(third.token);
    expect(((await mcp.callTool({ name: 'revokeToken', arguments: { id: third.id } })) as CallToolResult).isError).toBeFalsy();
    expectEnvelope(await t.api('GET', '/v1/me', { token: third.token }), 401, 'unauthorized');

    // A member's token with a scope other than write.
    const memberId = await newMember('member');
    const replayOnly = await tokenFor(memberId, { scopes: ['replay'] });
    expect((await t.api('DELETE', `/v1/tokens/${replayOnly.id}`, { token: replayOnly.token })).status).toBe(204);

    // A viewer's sessions: one by id, one as `current`.
    const a = await signIn(t, viewerId);
    const b = await signIn(t, viewerId);
    const aId = (await a.request('GET', '/v1/sessions')).body.data.find((s: { current: boolean }) => s.current).id;
    expect((await b.request('DELETE', `/v1/sessions/${aId}`)).status).toBe(204);
    expectEnvelope(await a.request('GET', '/v1/me'), 401, 'unauthorized');
    const elsewhere = browser(other, b.cookie);
    expect((await elsewhere.request('GET', '/v1/me')).status).toBe(200);
    expect((await b.request('DELETE', '/v1/sessions/current')).status).toBe(204);
    expectEnvelope(await b.request('GET', '/v1/me'), 401, 'unauthorized');
    await waitFor('the other process to refuse the ended session', async () => (await elsewhere.request('GET', '/v1/me')).status === 401);
    // A viewer still changes nothing else.
    const c = await signIn(t, viewerId);
    expectEnvelope(await c.request('POST', '/v1/todos', { body: { title: 'nope' } }), 403, 'insufficient_scope');
  });
});

describe('sessions and secrets on the wire (item 7)', () => {
  it('answers DELETE /v1/sessions/current for a token, which has no session, with 404', async () => {
    expectEnvelope(await t.api('DELETE', '/v1/sessions/current'), 404, 'session_not_found');
  });

  it('marks answers that carry a secret or a sign-in link no-store, replays included', async () => {
    const headers = { 'idempotency-key': `no-store-${Date.now()}` };
    const made = await t.api('POST', '/v1/tokens', { body: { name: 'secret', scopes: ['read'] }, headers });
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    const replay = await t.api('POST', '/v1/tokens', { body: { name: 'secret', scopes: ['read'] }, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('cache-control')).toBe('no-store');
    const link = await t.api('POST', `/v1/members/${ownerId}/signin-links`);
    expect(link.status).toBe(201);
    expect(link.headers.get('cache-control')).toBe('no-store');
    expect((await fetch(link.body.url)).headers.get('cache-control')).toBe('no-store');
    expect((await t.api('GET', '/v1/me')).headers.get('cache-control')).toBeNull();
  });

  it("ends the browser's previous session when it signs in again, in every process", async () => {
    const first = await signIn(t, await newMember('member'));
    const elsewhere = browser(other, first.cookie);
    expect((await elsewhere.request('GET', '/v1/me')).status).toBe(200);
    const otherMember = await newMember('member');
    const link = (await t.api('POST', `/v1/members/${otherMember}/signin-links`)).body.url;
    const res = await postSignin(t, codeOf(link), { headers: { cookie: first.cookie } });
    expect(res.status).toBe(303);
    const second = browser(t, sessionCookieOf(res)!);
    expect((await second.request('GET', '/v1/me')).body.member.id).toBe(otherMember);
    expectEnvelope(await first.request('GET', '/v1/me'), 401, 'unauthorized');
    await waitFor('the other process to refuse the replaced session', async () => (await elsewhere.request('GET', '/v1/me')).status === 401);
  });
});
