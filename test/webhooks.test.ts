import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedAddress } from '../src/domain/webhook-addresses.js';
import { createSecondOrg } from './helpers/second-org.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// The management operations (contract §10), on a server that refuses private addresses: the
// SSRF guard at create and update, with names answered by a resolver of the test's own.
let t: TestServer;
const dns = new Map<string, string[]>([
  ['hooks.example.test', ['93.184.216.34']],
  ['inside.example.test', ['127.0.0.1']],
  ['mixed.example.test', ['93.184.216.34', '10.1.2.3']],
  ['v6.example.test', ['2606:2800:220:1:248:1893:25c8:1946']],
  ['v6-inside.example.test', ['fd12::1']],
]);
const lookup = async (host: string): Promise<ResolvedAddress[]> => {
  const addresses = dns.get(host);
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

async function tokenFor(role: 'admin' | 'member' | 'viewer', scopes: string[], agent = false): Promise<string> {
  const m = await t.api('POST', '/v1/members', { body: { name: `A ${role}`, role } });
  expect(m.status).toBe(201);
  const tok = await t.api('POST', '/v1/tokens', { body: { name: role, scopes, member_id: m.body.id, agent } });
  expect(tok.status).toBe(201);
  return tok.body.token;
}

beforeAll(async () => {
  t = await startTestServer({}, { webhooks: { lookup } });
});
afterAll(async () => t?.close());

describe('webhooks: management', () => {
  it('creates a webhook whose secret (whsec_ + base64 of 24 bytes) is shown once, with no-store', async () => {
    const res = await t.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.test/tack', events: ['card.', 'todo.completed'], description: 'CI' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.body).toMatchObject({ url: 'https://hooks.example.test/tack', events: ['card.', 'todo.completed'], description: 'CI', enabled: true, disabled_at: null, failing_since: null });
    expect(res.body.id).toMatch(/^wh_/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(res.body.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    const got = await t.api('GET', `/v1/webhooks/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    const list = await t.api('GET', '/v1/webhooks');
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(res.body.id);
    expect(list.text).not.toContain(res.body.secret);
  });

  it('refuses bad input with field errors and changes nothing', async () => {
    const before = (await t.api('GET', '/v1/webhooks?limit=100')).body.data.length;
    for (const body of [
      { url: 'ftp://hooks.example.test/x', events: ['*'] },
      { url: 'https://hooks.example.test/x', events: [] },
      { url: 'https://hooks.example.test/x', events: ['card.flew'] },
      { url: 'https://hooks.example.test/x', events: ['nothing.'] },
      { url: 'https://hooks.example.test/x', events: ['*'], secret: 'whsec_mine' },
    ]) {
      const res = await t.api('POST', '/v1/webhooks', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await t.api('GET', '/v1/webhooks?limit=100')).body.data.length).toBe(before);
  });

  it('updates url, events, description and enabled; deletes; 404 for unknown and for another organization', async () => {
    const made = (await t.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.test/a', events: ['*'] } })).body;
    const changed = await t.api('PATCH', `/v1/webhooks/${made.id}`, { body: { url: 'https://hooks.example.test/b', events: ['todo.'], description: 'todos' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ url: 'https://hooks.example.test/b', events: ['todo.'], description: 'todos', enabled: true });
    const off = await t.api('PATCH', `/v1/webhooks/${made.id}`, { body: { enabled: false } });
    expect(off.body.enabled).toBe(false);
    expect(off.body.disabled_at).not.toBeNull();
    const on = await t.api('PATCH', `/v1/webhooks/${made.id}`, { body: { enabled: true } });
    expect(on.body).toMatchObject({ enabled: true, disabled_at: null });

    const other = await createSecondOrg(t.server.db.db);
    expect((await t.api('GET', `/v1/webhooks/${made.id}`, { token: other.token })).status).toBe(404);
    expect((await t.api('DELETE', `/v1/webhooks/${made.id}`, { token: other.token })).status).toBe(404);
    expect((await t.api('GET', '/v1/webhooks', { token: other.token })).body.data).toEqual([]);

    expect((await t.api('DELETE', `/v1/webhooks/${made.id}`)).status).toBe(204);
    const gone = await t.api('GET', `/v1/webhooks/${made.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('webhook_not_found');
  });

  it('rotates the secret: a new one, shown once', async () => {
    const made = (await t.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.test/r', events: ['*'] } })).body;
    const rotated = await t.api('POST', `/v1/webhooks/${made.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toContain('no-store');
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(made.secret);
  });

  it('is for owners and admins with config:write: members and viewers 403, listing too; agent tokens as their role allows', async () => {
    // Their tokens even hold config:write: the role is what refuses them.
    const member = await tokenFor('member', ['read', 'write', 'config:write']);
    const viewer = await tokenFor('viewer', ['read', 'config:write']);
    const admin = await tokenFor('admin', ['read', 'write', 'config:write']);
    const adminWithoutConfig = await tokenFor('admin', ['read', 'write']);
    const made = (await t.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.test/p', events: ['*'] } })).body;
    for (const token of [member, viewer]) {
      const listed = await t.api('GET', '/v1/webhooks', { token });
      expect(listed.status).toBe(403);
      expect(listed.body.code).toBe('forbidden_role');
      expect((await t.api('GET', `/v1/webhooks/${made.id}`, { token })).status).toBe(403);
      expect((await t.api('GET', `/v1/webhooks/${made.id}/deliveries`, { token })).status).toBe(403);
      expect((await t.api('POST', '/v1/webhooks', { token, body: { url: 'https://hooks.example.test/m', events: ['*'] } })).status).toBe(403);
      expect((await t.api('DELETE', `/v1/webhooks/${made.id}`, { token })).status).toBe(403);
    }
    const scopeless = await t.api('GET', '/v1/webhooks', { token: adminWithoutConfig });
    expect(scopeless.status).toBe(403);
    expect(scopeless.body.code).toBe('insufficient_scope');
    expect((await t.api('GET', '/v1/webhooks', { token: admin })).status).toBe(200);

    // An agent token acts as its member with that member's role (contract §3): an admin's agent with config:write may.
    const adminAgent = await tokenFor('admin', ['read', 'write', 'config:write'], true);
    expect((await t.api('POST', '/v1/webhooks', { token: adminAgent, body: { url: 'https://hooks.example.test/agent', events: ['*'] } })).status).toBe(201);
    const memberAgent = await tokenFor('member', ['read', 'write'], true);
    expect((await t.api('GET', '/v1/webhooks', { token: memberAgent })).status).toBe(403);
  });
});

describe('webhooks: the SSRF guard at create and update', () => {
  const refused = [
    'http://inside.example.test/hook',
    'https://inside.example.test/hook',
    'https://mixed.example.test/hook',
    'https://v6-inside.example.test/hook',
    'http://127.0.0.1:8080/hook',
    'http://localhost.localdomain.invalid.test/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.5/hook',
    'http://192.168.1.1/hook',
    'http://172.16.0.1/hook',
    'http://[fc00::1]/hook',
    'http://[fe80::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/hook',
  ];

  it('refuses private, loopback and link-local addresses (after resolving names, in both families) with 422 on url', async () => {
    dns.set('localhost.localdomain.invalid.test', ['127.0.0.1', '::1']);
    for (const url of refused) {
      const res = await t.api('POST', '/v1/webhooks', { body: { url, events: ['*'] } });
      expect(res.status, url).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ field: 'url', code: 'private_address' });
      expect(res.text).not.toMatch(/127\.0\.0\.1|10\.1\.2\.3|fd12/);
    }
  });

  it('takes public addresses, by name (v4 and v6) or literal', async () => {
    for (const url of ['https://hooks.example.test/ok', 'http://hooks.example.test/ok', 'https://v6.example.test/ok', 'http://93.184.216.34/ok']) {
      expect((await t.api('POST', '/v1/webhooks', { body: { url, events: ['*'] } })).status, url).toBe(201);
    }
  });

  it('checks a changed url too', async () => {
    const made = (await t.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.test/u', events: ['*'] } })).body;
    const res = await t.api('PATCH', `/v1/webhooks/${made.id}`, { body: { url: 'https://inside.example.test/u' } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ field: 'url', code: 'private_address' });
    expect((await t.api('GET', `/v1/webhooks/${made.id}`)).body.url).toBe('https://hooks.example.test/u');
  });
});
