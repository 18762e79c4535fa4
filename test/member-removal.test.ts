import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './helpers/envelope.js';
import { memberWithToken, type Role } from './helpers/factories.js';
import { waitFor } from './helpers/wait.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * What a person can create, they can remove (contract §7), members included: `deleteMember`,
 * DELETE /v1/members/{id}, as owner or admin with config:write, along the ladder, never the
 * last owner. A removed member is a missing one (404 `member_not_found`), and their tokens
 * get 401 from their next request on (§8: "one whose member is removed").
 */
let t: TestServer;
let ownerId: string;

beforeAll(async () => {
  t = await startTestServer();
  ownerId = (await t.api('GET', '/v1/me')).body.member.id;
});
afterAll(async () => t?.close());

let n = 0;
/** A new member with `role` and a token of their own with every scope but replay. */
async function someone(role: Role): Promise<{ id: string; token: string }> {
  n++;
  return memberWithToken(t, { name: `${role} ${n}`, email: `${role}${n}@example.com`, role }, { name: `${role} ${n}`, scopes: ['read', 'write', 'config:write'] });
}

const memberIds = async () => (await t.api('GET', '/v1/members?limit=100')).body.data.map((m: { id: string }) => m.id);

describe('deleteMember', () => {
  it('removes a member with their todos and assignments; their token gets 401 and they are 404 from then on', async () => {
    const ann = await someone('member');
    expect((await t.api('POST', '/v1/todos', { token: ann.token, body: { title: 'Ann’s own' } })).status).toBe(201);
    expect((await t.api('POST', '/v1/boards', { body: { name: 'Eng', slug: 'eng', ref_prefix: 'ENG' } })).status).toBe(201);
    const card = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Shared', assignee_ids: [ownerId, ann.id] } });
    expect(card.status, card.text).toBe(201);

    const res = await t.api('DELETE', `/v1/members/${ann.id}`);
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');

    expect(await memberIds()).not.toContain(ann.id);
    await waitFor('the removed member’s token to be refused', async () => (await t.api('GET', '/v1/me', { token: ann.token })).status === 401);
    expectEnvelope(await t.api('PATCH', `/v1/members/${ann.id}`, { body: { name: 'Back' } }), 404, 'member_not_found');
    expectEnvelope(await t.api('DELETE', `/v1/members/${ann.id}`), 404, 'member_not_found');
    expect((await t.api('GET', `/v1/cards/${card.body.ref}`)).body.assignee_ids).toEqual([ownerId]);
    expect(await t.database!.query('select id from todos where member_id = $1', [ann.id])).toEqual([]);
  });

  it('needs config:write as owner or admin, and never reaches above the caller’s role', async () => {
    const target = await someone('viewer');
    const member = await someone('member');
    expectEnvelope(await t.api('DELETE', `/v1/members/${target.id}`, { token: member.token }), 403, 'forbidden_role');
    const writer = await t.api('POST', '/v1/tokens', { body: { name: 'writer', scopes: ['read', 'write'] } });
    expectEnvelope(await t.api('DELETE', `/v1/members/${target.id}`, { token: writer.body.token }), 403, 'insufficient_scope');

    const admin = await someone('admin');
    expectEnvelope(await t.api('DELETE', `/v1/members/${ownerId}`, { token: admin.token }), 403, 'forbidden_role');
    expect(await memberIds()).toEqual(expect.arrayContaining([target.id, ownerId]));
    expect((await t.api('DELETE', `/v1/members/${target.id}`, { token: admin.token })).status).toBe(204);
  });

  it('keeps the last owner, and lets an owner go while another remains', async () => {
    expectEnvelope(await t.api('DELETE', `/v1/members/${ownerId}`), 409, 'last_owner');
    const second = await someone('owner');
    expect((await t.api('DELETE', `/v1/members/${second.id}`)).status).toBe(204);
    expectEnvelope(await t.api('DELETE', `/v1/members/${ownerId}`), 409, 'last_owner');
    expect(await memberIds()).toContain(ownerId);
  });

  it('is strict about its input like every operation', async () => {
    const res = await t.api('DELETE', '/v1/members/mem_abc?force=true');
    expectEnvelope(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'force', code: 'unknown_field' })]);
  });
});
