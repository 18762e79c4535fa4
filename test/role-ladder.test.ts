import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/domain/ids.js';
import { expectEnvelope } from './helpers/envelope.js';
import { memberWithToken, type Role } from './helpers/factories.js';
import { waitFor } from './helpers/wait.js';
import { lockTable } from './helpers/locks.js';
import { createSecondOrg } from './helpers/second-org.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * Roles are a ladder (contract §7): owner > admin > member > viewer. Nobody makes a token for,
 * changes, or raises a member above their own role; the last owner stays; another
 * organization's member is a missing one; two owners demoting each other both get an answer.
 */
let t: TestServer;
let ownerId: string;

interface Someone {
  id: string;
  token: string;
}

beforeAll(async () => {
  t = await startTestServer();
  ownerId = (await t.api('GET', '/v1/me')).body.member.id;
});
afterAll(async () => t?.close());

let n = 0;
/** A new member with `role` and a token of their own with every scope. */
async function someone(role: Role): Promise<Someone> {
  n++;
  return memberWithToken(t, { name: `${role} ${n}`, email: `${role}${n}@example.com`, role }, { name: `${role} ${n}`, scopes: ['read', 'write', 'config:write'] });
}

const roleOf = async (memberId: string) =>
  (await t.api('GET', '/v1/members?limit=100')).body.data.find((m: { id: string }) => m.id === memberId)?.role;

const tokenCount = async () => Number((await t.database!.query('select count(*)::int as n from tokens'))[0].n);

describe('tokens for others', () => {
  it('lets an admin make tokens for members at or below admin, never for an owner', async () => {
    const admin = await someone('admin');
    const before = await tokenCount();
    const forOwner = await t.api('POST', '/v1/tokens', { token: admin.token, body: { name: 'owner now', scopes: ['read', 'write', 'config:write'], member_id: ownerId } });
    expectEnvelope(forOwner, 403, 'forbidden_role');
    expect(await tokenCount()).toBe(before);
    for (const role of ['admin', 'member', 'viewer'] as const) {
      const target = await someone(role);
      const res = await t.api('POST', '/v1/tokens', { token: admin.token, body: { name: `for ${role}`, scopes: ['read'], member_id: target.id } });
      expect(res.status, `${role}: ${res.text}`).toBe(201);
    }
  });

  it('lets an owner make a token for anyone, and nobody below admin for anyone else', async () => {
    const admin = await someone('admin');
    expect((await t.api('POST', '/v1/tokens', { body: { name: 'for admin', scopes: ['read'], member_id: admin.id } })).status).toBe(201);
    const member = await someone('member');
    const viewer = await someone('viewer');
    expectEnvelope(await t.api('POST', '/v1/tokens', { token: member.token, body: { name: 'x', scopes: ['read'], member_id: viewer.id } }), 403);
  });

  it('answers a member of another organization exactly like a missing one', async () => {
    const other = await createSecondOrg(t.server.db.db);
    const before = await tokenCount();
    for (const memberId of [other.memberId, newId('mem')]) {
      expectEnvelope(await t.api('POST', '/v1/tokens', { body: { name: 'x', scopes: ['read'], member_id: memberId } }), 404, 'member_not_found');
      expectEnvelope(await t.api('PATCH', `/v1/members/${memberId}`, { body: { role: 'viewer' } }), 404, 'member_not_found');
      expectEnvelope(await t.api('PATCH', `/v1/members/${memberId}`, { body: { name: 'Taken over' } }), 404, 'member_not_found');
    }
    expect(await tokenCount()).toBe(before);
    const theirs = await t.database!.query('select role, name from members where id = $1', [other.memberId]);
    expect(theirs).toEqual([{ role: 'owner', name: 'Other owner' }]);
  });
});

describe('raising and changing members', () => {
  it('lets nobody grant a role above their own: only an owner makes an owner', async () => {
    const admin = await someone('admin');
    const member = await someone('member');
    expectEnvelope(await t.api('POST', '/v1/members', { token: admin.token, body: { name: 'Would-be owner', role: 'owner' } }), 403, 'forbidden_role');
    expectEnvelope(await t.api('PATCH', `/v1/members/${member.id}`, { token: admin.token, body: { role: 'owner' } }), 403, 'forbidden_role');
    expectEnvelope(await t.api('PATCH', `/v1/members/${admin.id}`, { token: admin.token, body: { role: 'owner' } }), 403, 'forbidden_role');
    expect(await roleOf(member.id)).toBe('member');
    expect(await roleOf(admin.id)).toBe('admin');
    // Up to their own role is allowed.
    expect((await t.api('PATCH', `/v1/members/${member.id}`, { token: admin.token, body: { role: 'admin' } })).status).toBe(200);
    expect((await t.api('POST', '/v1/members', { token: admin.token, body: { name: 'New admin', role: 'admin' } })).status).toBe(201);
    // A member cannot raise themselves or anyone.
    const plain = await someone('member');
    expectEnvelope(await t.api('PATCH', `/v1/members/${plain.id}`, { token: plain.token, body: { role: 'admin' } }), 403);
    // An owner can.
    expect((await t.api('PATCH', `/v1/members/${plain.id}`, { body: { role: 'owner' } })).body.role).toBe('owner');
    expect((await t.api('PATCH', `/v1/members/${plain.id}`, { body: { role: 'member' } })).body.role).toBe('member');
  });

  it('lets an admin neither demote an owner nor change anything of theirs', async () => {
    const admin = await someone('admin');
    expectEnvelope(await t.api('PATCH', `/v1/members/${ownerId}`, { token: admin.token, body: { role: 'member' } }), 403, 'forbidden_role');
    // Taking over the owner's Slack link or e-mail would let the admin act as the owner in Slack.
    expectEnvelope(await t.api('PATCH', `/v1/members/${ownerId}`, { token: admin.token, body: { slack_user_id: 'U0TAKEOVER' } }), 403, 'forbidden_role');
    expectEnvelope(await t.api('PATCH', `/v1/members/${ownerId}`, { token: admin.token, body: { email: 'admin@example.com' } }), 403, 'forbidden_role');
    const owner = (await t.api('GET', '/v1/me')).body.member;
    expect(owner).toMatchObject({ role: 'owner', slack_user_id: null });
    // Another admin, or themselves, they may change.
    const peer = await someone('admin');
    expect((await t.api('PATCH', `/v1/members/${peer.id}`, { token: admin.token, body: { tz: 'Europe/Paris' } })).status).toBe(200);
    expect((await t.api('PATCH', `/v1/members/${admin.id}`, { token: admin.token, body: { role: 'member' } })).body.role).toBe('member');
  });

  it('keeps the last owner an owner, and lets one of two owners step down', async () => {
    expectEnvelope(await t.api('PATCH', `/v1/members/${ownerId}`, { body: { role: 'admin' } }), 409, 'last_owner');
    expect(await roleOf(ownerId)).toBe('owner');
    const second = await someone('member');
    expect((await t.api('PATCH', `/v1/members/${second.id}`, { body: { role: 'owner' } })).status).toBe(200);
    expect((await t.api('PATCH', `/v1/members/${second.id}`, { token: second.token, body: { role: 'admin' } })).body.role).toBe('admin');
    expectEnvelope(await t.api('PATCH', `/v1/members/${ownerId}`, { body: { role: 'admin' } }), 409, 'last_owner');
  });
});

describe('two owners demoting each other at the same moment', () => {
  it('lets exactly one win and tells the other why, never a 500', async () => {
    const second = await someone('member');
    expect((await t.api('PATCH', `/v1/members/${second.id}`, { body: { role: 'owner' } })).status).toBe(200);
    // Hold every UPDATE of members (row locks still pass) until both requests wait, then let
    // them go: each has locked what it locks before writing, the worst case for a deadlock.
    const lock = await lockTable(t.database!.url, 'members', 'share');
    let results: Awaited<ReturnType<TestServer['api']>>[];
    try {
      const both = Promise.all([
        t.api('PATCH', `/v1/members/${second.id}`, { body: { role: 'admin' } }),
        t.api('PATCH', `/v1/members/${ownerId}`, { token: second.token, body: { role: 'admin' } }),
      ]);
      await waitFor('both demotions to wait on a lock', async () => {
        const rows = await t.database!.query(
          `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%"members"%'`,
        );
        return rows.length === 2;
      });
      await lock.release();
      results = await both;
    } finally {
      await lock.release();
    }
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, results.map((r) => r.text).join('\n')).toEqual([200, 403]);
    expectEnvelope(results.find((r) => r.status === 403)!, 403, 'forbidden_role');
    const owners = await t.database!.query(`select id from members where role = 'owner' and id = any($1)`, [[ownerId, second.id]]);
    expect(owners).toHaveLength(1);
    // Whoever lost is back to a single owner; restore the bootstrap owner for other tests.
    if (owners[0].id !== ownerId) {
      expect((await t.api('PATCH', `/v1/members/${ownerId}`, { token: second.token, body: { role: 'owner' } })).status).toBe(200);
    }
  });
});
