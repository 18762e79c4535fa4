import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './helpers/envelope.js';
import { member, type Role } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { browser, signIn } from './helpers/web.js';

/** Sessions as callers of /v1 (contract §8): who they act as, how they end, cross-site writes. */
let t: TestServer;
let other: TestServer;
let offsetMs = 0;
beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1000' }, { clock: () => new Date(Date.now() + offsetMs) });
  // A second API process on the same database.
  other = await startTestServer({ DATABASE_URL: t.database!.url, TACK_BOOTSTRAP_TOKEN: t.token, RATE_LIMIT_PER_MINUTE: '1000' });
});
afterAll(async () => {
  await other?.server.close();
  await t?.close();
});

async function newMember(name: string, role: Role): Promise<string> {
  return (await member(t, { name, role })).id;
}

const todoCount = async () => Number((await t.database!.query('select count(*) as n from todos'))[0].n);

describe('a session on /v1', () => {
  it("acts as its member, a human caller with the scopes of the member's role", async () => {
    const viewerId = await newMember('Val', 'viewer');
    const viewer = await signIn(t, viewerId);
    const me = await viewer.request('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ member: { id: viewerId, role: 'viewer' }, scopes: ['read'], agent: false });
    const refused = await viewer.request('POST', '/v1/todos', { body: { title: 'nope' } });
    expectEnvelope(refused, 403, 'insufficient_scope');
    // A person in a browser holds no token: the message names their role, not "this token".
    expect(refused.body.user_message).toBe('A viewer cannot do this: it needs the "write" scope, which the viewer role does not have.');

    const memberId = await newMember('Mia', 'member');
    const mia = await signIn(t, memberId);
    expect((await mia.request('GET', '/v1/me')).body.scopes).toEqual(['read', 'write', 'replay']);
    const todo = await mia.request('POST', '/v1/todos', { body: { title: 'from the browser' } });
    expect(todo.status, todo.text).toBe(201);
    expect(todo.headers.get('ratelimit-limit')).toBe('1000');
  });

  it("applies a change of the member's role on the session's next request", async () => {
    const memberId = await newMember('Rae', 'member');
    const rae = await signIn(t, memberId);
    expect((await rae.request('POST', '/v1/todos', { body: { title: 'while a member' } })).status).toBe(201);
    expect((await t.api('PATCH', `/v1/members/${memberId}`, { body: { role: 'viewer' } })).status).toBe(200);
    expect((await rae.request('GET', '/v1/me')).body.scopes).toEqual(['read']);
    expectEnvelope(await rae.request('POST', '/v1/todos', { body: { title: 'as a viewer' } }), 403, 'insufficient_scope');
  });

  it('ignores the cookie when an Authorization header is sent', async () => {
    const memberId = await newMember('Hal', 'member');
    const hal = await signIn(t, memberId);
    const withToken = await hal.request('GET', '/v1/me', { headers: { authorization: `Bearer ${t.token}` } });
    expect(withToken.body.member.role).toBe('owner');
    const badToken = await hal.request('GET', '/v1/me', { headers: { authorization: 'Bearer nope' } });
    expectEnvelope(badToken, 401, 'unauthorized');
  });

  it('counts rate limits per session, not per address', async () => {
    const a = await signIn(t);
    const b = await signIn(t);
    const first = Number((await a.request('GET', '/v1/me')).headers.get('ratelimit-remaining'));
    await a.request('GET', '/v1/me');
    await a.request('GET', '/v1/me');
    expect(Number((await a.request('GET', '/v1/me')).headers.get('ratelimit-remaining'))).toBe(first - 3);
    expect(Number((await b.request('GET', '/v1/me')).headers.get('ratelimit-remaining'))).toBe(999);
  });

  it('keeps idempotency keys per session', async () => {
    const a = await signIn(t);
    const b = await signIn(t);
    const headers = { 'idempotency-key': 'web-1' };
    const first = await a.request('POST', '/v1/todos', { body: { title: 'once' }, headers });
    const replay = await a.request('POST', '/v1/todos', { body: { title: 'once' }, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    const elsewhere = await b.request('POST', '/v1/todos', { body: { title: 'once' }, headers });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.body.id).not.toBe(first.body.id);
  });

  it('is not taken by /mcp, which wants a bearer token', async () => {
    const a = await signIn(t);
    const res = await a.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expectEnvelope(res, 401, 'unauthorized');
  });
});

describe('cross-site writes', () => {
  it('refuses a write whose Origin is another site, or whose Sec-Fetch-Site is cross-site, and changes nothing', async () => {
    const a = await signIn(t);
    const before = await todoCount();
    const refused = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: null },
      { headers: { 'sec-fetch-site': 'cross-site' } },
      { origin: 'http://evil.example', headers: { 'sec-fetch-site': 'same-origin' } },
    ];
    for (const options of refused) {
      const res = await a.request('POST', '/v1/todos', { body: { title: 'forged' }, ...options });
      expectEnvelope(res, 403, 'cross_site_request');
      expect(res.headers.get('ratelimit-limit')).not.toBeNull();
    }
    const me = (await a.request('GET', '/v1/me')).body.member.id;
    expectEnvelope(await a.request('PATCH', `/v1/members/${me}`, { body: { name: 'Pwned' }, origin: 'http://evil.example' }), 403, 'cross_site_request');
    expectEnvelope(await a.request('DELETE', `/v1/tokens/tok_whatever`, { origin: 'http://evil.example' }), 403, 'cross_site_request');
    expect(await todoCount()).toBe(before);
    expect((await a.request('GET', '/v1/me')).body.member.name).not.toBe('Pwned');
    // Reads from anywhere are fine (SameSite=Lax keeps the cookie off other sites' subrequests anyway).
    expect((await a.request('GET', '/v1/todos', { origin: 'http://evil.example' })).status).toBe(200);
    // The same write from tack's own page goes through.
    expect((await a.request('POST', '/v1/todos', { body: { title: 'mine' } })).status).toBe(201);
    expect((await a.request('POST', '/v1/todos', { body: { title: 'mine too' }, origin: null, headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(201);
    expect(await todoCount()).toBe(before + 2);
  });

  it('leaves token callers alone: no Origin needed with a bearer token', async () => {
    const res = await t.api('POST', '/v1/todos', { body: { title: 'script' }, headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(201);
  });
});

describe('listing and ending sessions', () => {
  it("lists the caller's own live sessions with current marking this one", async () => {
    const memberId = await newMember('Lou', 'member');
    const first = await signIn(t, memberId);
    const second = await signIn(t, memberId);
    await signIn(t); // the owner's, not Lou's
    const list = await second.request('GET', '/v1/sessions');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    const [newest, older] = list.body.data;
    expect(newest).toEqual({
      id: expect.stringMatching(/^ses_/),
      user_agent: expect.any(String),
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      expires_at: expect.any(String),
      current: true,
    });
    expect(Date.parse(newest.expires_at) - Date.parse(newest.last_used_at)).toBe(30 * 24 * 3600 * 1000);
    expect(older.current).toBe(false);
    expect((await first.request('GET', '/v1/sessions')).body.data.map((s: { current: boolean }) => s.current)).toEqual([false, true]);
    const page = await second.request('GET', '/v1/sessions?limit=1');
    expect(page.body.data).toHaveLength(1);
    expect((await second.request('GET', `/v1/sessions?limit=1&cursor=${page.body.next_cursor}`)).body.data[0].id).toBe(older.id);
  });

  it('ends a session: 401 on its very next request, here and in another process', async () => {
    const memberId = await newMember('Eve', 'member');
    const keep = await signIn(t, memberId);
    const gone = await signIn(t, memberId);
    expect((await gone.request('GET', '/v1/me')).status).toBe(200);
    expect((await browser(other, gone.cookie).request('GET', '/v1/me')).status).toBe(200); // cached there now
    const goneId = (await gone.request('GET', '/v1/sessions')).body.data.find((s: { current: boolean }) => s.current).id;

    const todosBefore = await todoCount();
    const end = await keep.request('DELETE', `/v1/sessions/${goneId}`);
    expect(end.status).toBe(204);
    // The other process still holds the session in its cache, yet refuses a write at once:
    // every write re-reads its caller inside its own transaction.
    expectEnvelope(await browser(other, gone.cookie).request('POST', '/v1/todos', { body: { title: 'after the end' } }), 401, 'unauthorized');
    expect(await todoCount()).toBe(todosBefore);
    expectEnvelope(await gone.request('GET', '/v1/me'), 401, 'unauthorized');
    await waitFor('the other process to refuse the ended session', async () => (await browser(other, gone.cookie).request('GET', '/v1/me')).status === 401);
    expect((await keep.request('GET', '/v1/me')).status).toBe(200);
    expect((await keep.request('GET', '/v1/sessions')).body.data.map((s: { id: string }) => s.id)).not.toContain(goneId);
    expectEnvelope(await keep.request('DELETE', `/v1/sessions/${goneId}`), 404, 'session_not_found');
  });

  it('refuses a write from a session ended behind a cache: the write re-reads its session', async () => {
    const memberId = await newMember('Finn', 'member');
    const session = await signIn(t, memberId);
    expect((await browser(other, session.cookie).request('GET', '/v1/me')).status).toBe(200); // cached there now
    const id = (await session.request('GET', '/v1/sessions')).body.data.find((s: { current: boolean }) => s.current).id;
    // Ended with no notification at all (as if every listener had been down): only the write's own check can see it.
    await t.database!.query('delete from sessions where id = $1', [id]);
    const before = await todoCount();
    expectEnvelope(await browser(other, session.cookie).request('POST', '/v1/todos', { body: { title: 'after the end' } }), 401, 'unauthorized');
    expect(await todoCount()).toBe(before);
  });

  it("keeps another member's session private from members (404), and lets an owner end it", async () => {
    const kim = await signIn(t, await newMember('Kim', 'member'));
    const kimSession = (await kim.request('GET', '/v1/sessions')).body.data[0].id;
    const lee = await signIn(t, await newMember('Lee', 'member'));
    expectEnvelope(await lee.request('DELETE', `/v1/sessions/${kimSession}`), 404, 'session_not_found');
    expect((await kim.request('GET', '/v1/me')).status).toBe(200);
    expect((await t.api('DELETE', `/v1/sessions/${kimSession}`)).status).toBe(204);
    expectEnvelope(await kim.request('GET', '/v1/me'), 401, 'unauthorized');
  });

  it('signs out with POST /signout: the session ends and the cookie is cleared', async () => {
    const a = await signIn(t);
    const cross = await a.request('POST', '/signout', { origin: 'http://evil.example' });
    expect(cross.status).toBe(403);
    expect((await a.request('GET', '/v1/me')).status).toBe(200);
    const out = await a.request('POST', '/signout');
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^tack_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970/);
    expectEnvelope(await a.request('GET', '/v1/me'), 401, 'unauthorized');
    expect((await a.request('POST', '/signout')).status).toBe(204);
    const form = await fetch(`${t.url}/signout`, {
      method: 'POST',
      headers: { cookie: a.cookie, origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/signin');
  });

  it('ends the sessions of a removed member', async () => {
    const memberId = await newMember('Rex', 'member');
    const rex = await signIn(t, memberId);
    expect((await rex.request('GET', '/v1/me')).status).toBe(200);
    expect((await t.api('DELETE', `/v1/members/${memberId}`)).status).toBe(204);
    await waitFor('the removed member to be refused', async () => (await rex.request('GET', '/v1/me')).status === 401);
    expect(await t.database!.query('select id from sessions where member_id = $1', [memberId])).toEqual([]);
  });

  it('ends a session after 30 days without use, and a used one lives on', async () => {
    const idle = await signIn(t);
    const busy = await signIn(t);
    try {
      offsetMs = 20 * 24 * 3600 * 1000;
      expect((await busy.request('GET', '/v1/me')).status).toBe(200); // used on day 20
      offsetMs = 31 * 24 * 3600 * 1000;
      expectEnvelope(await idle.request('GET', '/v1/me'), 401, 'unauthorized');
      expect((await busy.request('GET', '/v1/me')).status).toBe(200);
    } finally {
      offsetMs = 0;
    }
  });
});
