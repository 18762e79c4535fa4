import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, token as makeToken, type Scope, type Fields } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * `abilities` (contract §9): what the API says a caller may do with a member, or at all, is
 * exactly what the writes then let them do. Every caller (roles, an agent token, tokens short
 * of a scope) tries every write on every member, and each outcome is held to the ability the
 * list gave beforehand; with two owners, then with the last one.
 */

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];

let t: TestServer;
const members: Record<string, string> = {};
const callers: Record<string, string> = {};
/** A token of the second owner, to put the first one's role back. */
let owner2Token: string;

async function token(memberId: string, body: Partial<Fields<'/tokens'>>): Promise<string> {
  return (await makeToken(t, { name: 'caller', member_id: memberId, ...body })).token;
}

beforeAll(async () => {
  t = await startTestServer();
  members.owner = (await t.api('GET', '/v1/me')).body.member.id;
  for (const [name, role] of [['owner2', 'owner'], ['admin', 'admin'], ['member', 'member'], ['viewer', 'viewer']] as const) {
    members[name] = (await member(t, { name, role })).id;
  }
  const all: Scope[] = ['read', 'write', 'config:write'];
  owner2Token = await token(members.owner2!, { scopes: all });
  callers.owner = t.token;
  callers.admin = await token(members.admin!, { scopes: all });
  callers.member = await token(members.member!, { scopes: all.slice(0, 2) });
  callers.viewer = await token(members.viewer!, { scopes: all });
  callers['admin agent'] = await token(members.admin!, { scopes: all, agent: true });
  callers['admin without config:write'] = await token(members.admin!, { scopes: ['read', 'write'] });
  callers['admin read-only'] = await token(members.admin!, { scopes: ['read'] });
});
afterAll(async () => t?.close());

interface Listed {
  id: string;
  role: Role;
  abilities: { change_role: Role[]; make_signin_link: boolean; remove: boolean };
}

const owners = () => [members.owner!, members.owner2!];

/** Sets a member's role back as an owner other than them would. */
async function restoreRole(memberId: string, role: Role): Promise<void> {
  const by = memberId === members.owner ? owner2Token : t.token;
  const res = await t.api('PATCH', `/v1/members/${memberId}`, { token: by, body: { role } });
  expect(res.status, res.text).toBe(200);
}

/** The member row and their tokens, as they were, after a removal that was allowed. */
async function snapshot(memberId: string): Promise<() => Promise<void>> {
  const [member] = await t.database!.query('select row_to_json(m) as j from members m where id = $1', [memberId]);
  const tokens = await t.database!.query('select coalesce(json_agg(k), $2::json) as j from tokens k where member_id = $1', [memberId, '[]']);
  return async () => {
    await t.database!.query('insert into members select * from json_populate_record(null::members, $1::json)', [member.j]);
    await t.database!.query('insert into tokens select * from json_populate_recordset(null::tokens, $1::json)', [JSON.stringify(tokens[0].j)]);
  };
}

/** Every caller's abilities on every member, each held to what the write then does. */
async function holdAbilitiesToWrites(): Promise<Record<string, Record<string, Listed['abilities']>>> {
  const seen: Record<string, Record<string, Listed['abilities']>> = {};
  for (const [callerName, callerToken] of Object.entries(callers)) {
    const list = await t.api('GET', '/v1/members?limit=100', { token: callerToken });
    expect(list.status).toBe(200);
    seen[callerName] = {};
    for (const [targetName, targetId] of Object.entries(members)) {
      const target = (list.body.data as Listed[]).find((m) => m.id === targetId)!;
      const said = target.abilities;
      seen[callerName]![targetName] = said;
      const where = `${callerName} on ${targetName}`;

      const link = await t.api('POST', `/v1/members/${targetId}/signin-links`, { token: callerToken });
      expect(link.status === 201, `${where}: sign-in link ${link.status} ${link.text}`).toBe(said.make_signin_link);

      for (const role of ROLES.filter((r) => r !== target.role)) {
        const change = await t.api('PATCH', `/v1/members/${targetId}`, { token: callerToken, body: { role } });
        expect(change.status === 200, `${where}: role ${role} ${change.status} ${change.text}`).toBe(said.change_role.includes(role));
        if (change.status === 200) await restoreRole(targetId, target.role);
      }

      const restore = await snapshot(targetId);
      const removal = await t.api('DELETE', `/v1/members/${targetId}`, { token: callerToken });
      expect(removal.status === 204, `${where}: removal ${removal.status} ${removal.text}`).toBe(said.remove);
      if (removal.status === 204) await restore();
    }
  }
  return seen;
}

describe('abilities on members', { timeout: 120_000 }, () => {
  it('offer exactly the role changes, sign-in links and removals the writes allow, with two owners', async () => {
    const seen = await holdAbilitiesToWrites();
    // The ladder, as the list says it: an admin acts on nobody above, an agent makes no links,
    // a plain member or a viewer manages nobody (a member may link themselves).
    expect(seen.admin!.owner).toEqual({ change_role: [], make_signin_link: false, remove: false });
    expect(seen.admin!.member).toEqual({ change_role: ['admin', 'viewer'], make_signin_link: true, remove: true });
    expect(seen.owner!.owner2).toEqual({ change_role: ['admin', 'member', 'viewer'], make_signin_link: true, remove: true });
    expect(seen['admin agent']!.admin!.make_signin_link).toBe(false);
    expect(seen.member!.member).toEqual({ change_role: [], make_signin_link: true, remove: false });
    expect(seen.viewer!.viewer).toEqual({ change_role: [], make_signin_link: false, remove: false });
    expect(seen['admin read-only']!.member).toEqual({ change_role: [], make_signin_link: false, remove: false });
    expect(owners()).toHaveLength(2);
  });

  it('keep the last owner an owner: no role change or removal is offered on them, not even to themselves', async () => {
    expect((await t.api('PATCH', `/v1/members/${members.owner2}`, { body: { role: 'admin' } })).status).toBe(200);
    const seen = await holdAbilitiesToWrites();
    expect(seen.owner!.owner).toEqual({ change_role: [], make_signin_link: true, remove: false });
    expect(seen.owner!.owner2!.change_role).toEqual(['owner', 'member', 'viewer']);
  });
});

describe('abilities of the caller', { timeout: 60_000 }, () => {
  it('say what getMe’s caller may manage, exactly as the writes answer', async () => {
    const expected: Record<string, boolean> = { owner: true, admin: true, member: false, viewer: false, 'admin agent': true, 'admin without config:write': false, 'admin read-only': false };
    for (const [name, callerToken] of Object.entries(callers)) {
      const me = await t.api('GET', '/v1/me', { token: callerToken });
      expect(me.status).toBe(200);
      const a = me.body.abilities;
      expect(a.manage_members, name).toBe(expected[name]);
      expect(a.manage_webhooks, name).toBe(expected[name]);

      const board = await t.api('POST', '/v1/boards', { token: callerToken, body: { name: `Board of ${name}` } });
      expect(board.status === 201, `${name}: board ${board.status} ${board.text}`).toBe(a.manage_boards);
      if (board.status === 201) expect((await t.api('DELETE', `/v1/boards/${board.body.id}`)).status).toBe(204);

      for (const role of ROLES) {
        const added = await t.api('POST', '/v1/members', { token: callerToken, body: { name: `${role} by ${name}`, role } });
        expect(added.status === 201, `${name}: add ${role} ${added.status} ${added.text}`).toBe(a.grant_roles.includes(role));
        if (added.status === 201) expect((await t.api('DELETE', `/v1/members/${added.body.id}`)).status).toBe(204);
      }
      expect(a.manage_members).toBe(a.grant_roles.length > 0);

      const other = await t.api('POST', '/v1/tokens', { token: callerToken, body: { name: 'for the viewer', scopes: ['read'], member_id: members.viewer } });
      expect(other.status === 201, `${name}: token for another ${other.status} ${other.text}`).toBe(a.manage_tokens);

      const todo = await t.api('POST', '/v1/todos', { token: callerToken, body: { title: `Todo of ${name}` } });
      expect(todo.status === 201, `${name}: todo ${todo.status} ${todo.text}`).toBe(a.write);
    }
  });
});
