import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../src/domain/token-format.js';
import { expectEnvelope } from './helpers/envelope.js';
import * as make from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
// The server's clock: real time plus an offset a test may move (token expiry).
let offsetMs = 0;
beforeAll(async () => {
  t = await startTestServer({}, { clock: () => new Date(Date.now() + offsetMs) });
});
afterAll(async () => t?.close());

describe('authentication', () => {
  it('answers getMe for the bootstrap owner token', async () => {
    const res = await t.api('GET', '/v1/me');
    expect(res.status).toBe(200);
    expect(res.body.member.role).toBe('owner');
    expect(res.body.org.slug).toBe('default');
    expect(res.body.scopes).toEqual(['read', 'write', 'replay', 'config:write']);
    expect(res.body.agent).toBe(false);
  });

  it('refuses a missing, malformed, mistyped or unknown token with 401 in the envelope', async () => {
    const typo = t.token.slice(0, -8) + (t.token.at(-8) === 'a' ? 'b' : 'a') + t.token.slice(-7);
    for (const token of [null, 'nope', typo, generateToken()]) {
      const res = await t.api('GET', '/v1/me', { token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'unauthorized', http_status: 401 });
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
  });

  it('revokes a token from its very next request', async () => {
    const created = await t.api('POST', '/v1/tokens', { body: { name: 'short-lived', scopes: ['read', 'write'] } });
    expect(created.status).toBe(201);
    const secret: string = created.body.token;
    expect(secret).toMatch(/^tack_live_[A-Za-z0-9]{32,}$/);
    expect((await t.api('GET', '/v1/me', { token: secret })).status).toBe(200);
    const revoked = await t.api('DELETE', `/v1/tokens/${created.body.id}`, { token: secret });
    expect(revoked.status).toBe(204);
    expect((await t.api('GET', '/v1/me', { token: secret })).status).toBe(401);
  });

  it('enforces scopes with 403 insufficient_scope and never grants wider scopes', async () => {
    const ro = await t.api('POST', '/v1/tokens', { body: { name: 'reader', scopes: ['read'] } });
    const res = await t.api('POST', '/v1/tokens', { token: ro.body.token, body: { name: 'x', scopes: ['read'] } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    const writer = await t.api('POST', '/v1/tokens', { body: { name: 'writer', scopes: ['read', 'write'] } });
    const wider = await t.api('POST', '/v1/tokens', { token: writer.body.token, body: { name: 'y', scopes: ['config:write'] } });
    expect(wider.status).toBe(403);
    const count = await t.api('GET', '/v1/tokens?limit=100');
    expect(count.body.data.some((tk: { name: string }) => tk.name === 'y')).toBe(false);
  });

  it('marks agent tokens as agents', async () => {
    const agent = await t.api('POST', '/v1/tokens', { body: { name: 'bot', scopes: ['read', 'write'], agent: true } });
    const me = await t.api('GET', '/v1/me', { token: agent.body.token });
    expect(me.body.agent).toBe(true);
    expect(me.body.member.role).toBe('owner');
    expect((await t.api('POST', '/v1/tokens', { body: { name: 'human', scopes: ['read'] } })).body.agent).toBe(false);
    // A token an agent token makes is an agent token; asked outright for a human one, it refuses and makes nothing.
    const child = await t.api('POST', '/v1/tokens', { token: agent.body.token, body: { name: 'child', scopes: ['read'] } });
    expect(child.status).toBe(201);
    expect(child.body.agent).toBe(true);
    const human = await t.api('POST', '/v1/tokens', { token: agent.body.token, body: { name: 'pretend human', scopes: ['read'], agent: false } });
    expect(human.status).toBe(403);
    expect(human.body).toMatchObject({ code: 'agent_token_required', user_message: expect.stringContaining('agent tokens only') });
    const names = (await t.api('GET', '/v1/tokens?limit=100')).body.data.map((tk: { name: string }) => tk.name);
    expect(names).toContain('child');
    expect(names).not.toContain('pretend human');
  });

  it('keeps viewers read-only and config:write to owners and admins', async () => {
    const viewer = await make.member(t, { name: 'Vera', email: 'vera@example.com', role: 'viewer' });
    const vt = await make.token(t, { name: 'vera', scopes: ['read', 'write'], member_id: viewer.id });
    expect((await t.api('GET', '/v1/members', { token: vt.token })).status).toBe(200);
    const write = await t.api('POST', '/v1/tokens', { token: vt.token, body: { name: 'z', scopes: ['read'] } });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('forbidden_role');

    const member = await make.member(t, { name: 'Max', role: 'member' });
    const mt = await make.token(t, { name: 'max', scopes: ['read', 'write'], member_id: member.id });
    const others = await t.api('POST', '/v1/tokens', { token: mt.token, body: { name: 'for vera', scopes: ['read'], member_id: viewer.id } });
    expect(others.status).toBe(403);
    // Revoking another member's token takes config:write too: refused as making one is, and the token keeps working.
    const revokeOthers = await t.api('DELETE', `/v1/tokens/${vt.id}`, { token: mt.token });
    expect(revokeOthers.status).toBe(403);
    expect(revokeOthers.body.code).toBe('insufficient_scope');
    const ownerRw = await t.api('POST', '/v1/tokens', { body: { name: 'owner rw', scopes: ['read', 'write'] } });
    expect((await t.api('DELETE', `/v1/tokens/${vt.id}`, { token: ownerRw.body.token })).body.code).toBe('insufficient_scope');
    expect((await t.api('GET', '/v1/me', { token: vt.token })).status).toBe(200);
    const self = await t.api('PATCH', `/v1/members/${member.id}`, { token: mt.token, body: { tz: 'Europe/Berlin' } });
    expect(self.status).toBe(200);
    expect(self.body.tz).toBe('Europe/Berlin');
    const promote = await t.api('PATCH', `/v1/members/${member.id}`, { token: mt.token, body: { role: 'admin' } });
    expect(promote.status).toBe(403);
  });

  it('applies a role change on the next request', async () => {
    const m = await make.member(t, { name: 'Rita', role: 'member' });
    const tok = await make.token(t, { name: 'rita', scopes: ['read', 'write'], member_id: m.id });
    expect((await t.api('GET', '/v1/me', { token: tok.token })).body.member.role).toBe('member');
    await t.api('PATCH', `/v1/members/${m.id}`, { body: { role: 'viewer' } });
    const denied = await t.api('POST', '/v1/tokens', { token: tok.token, body: { name: 'r2', scopes: ['read'] } });
    expect(denied.status).toBe(403);
  });

  it('answers getMe anew after a change to the caller, though its answer is kept between requests', async () => {
    const m = await make.member(t, { name: 'Otto', role: 'member' });
    const tok = await make.token(t, { name: 'otto', scopes: ['read'], member_id: m.id });
    const first = await t.api('GET', '/v1/me', { token: tok.token });
    expect(first.body.member).toMatchObject({ name: 'Otto', role: 'member', tz: null });
    expect(first.body.scopes).toEqual(['read']);
    // The same bytes while nothing changes.
    expect((await t.api('GET', '/v1/me', { token: tok.token })).text).toBe(first.text);
    await t.api('PATCH', `/v1/members/${m.id}`, { body: { name: 'Otto Renamed', role: 'viewer', tz: 'Europe/Oslo' } });
    const after = await t.api('GET', '/v1/me', { token: tok.token });
    expect(after.body.member).toMatchObject({ name: 'Otto Renamed', role: 'viewer', tz: 'Europe/Oslo' });
    expect(after.body.member.id).toBe(m.id);
  });

  it('rejects a token from its expiry on, cached or not, for reads and writes', async () => {
    // Within the auth cache's minute: the cached principal itself must expire.
    const soon = new Date(Date.now() + 30_000).toISOString();
    const used = await t.api('POST', '/v1/tokens', { body: { name: 'used', scopes: ['read', 'write'], expires_at: soon } });
    const unused = await t.api('POST', '/v1/tokens', { body: { name: 'unused', scopes: ['read'], expires_at: soon } });
    expect([used.status, unused.status]).toEqual([201, 201]);
    expect((await t.api('GET', '/v1/me', { token: used.body.token })).status).toBe(200);
    try {
      offsetMs = 25_000;
      expect((await t.api('GET', '/v1/me', { token: used.body.token })).status).toBe(200);
      offsetMs = 31_000;
      expectEnvelope(await t.api('GET', '/v1/me', { token: used.body.token }), 401, 'unauthorized');
      expectEnvelope(await t.api('POST', '/v1/todos', { token: used.body.token, body: { title: 'too late' } }), 401, 'unauthorized');
      expectEnvelope(await t.api('GET', '/v1/me', { token: unused.body.token }), 401, 'unauthorized');
    } finally {
      offsetMs = 0;
    }
  });

  it('keeps a new token\'s secret out of the idempotency records, yet replays it to its caller', async () => {
    const headers = { 'idempotency-key': 'secret-replay-1' };
    const first = await t.api('POST', '/v1/tokens', { headers, body: { name: 'replayed', scopes: ['read'] } });
    expect(first.status).toBe(201);
    const again = await t.api('POST', '/v1/tokens', { headers, body: { name: 'replayed', scopes: ['read'] } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: t.database!.url });
    await client.connect();
    const { rows } = await client.query('select body from idempotency_keys');
    await client.end();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(first.body.token);
  });

  it('stores only a hash of each token', async () => {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: t.database!.url });
    await client.connect();
    const { rows } = await client.query('select * from tokens');
    await client.end();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(t.token);
    expect(dump).not.toMatch(/tack_live_[A-Za-z0-9]{20}/);
  });
});
