import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
/** The app's clock: every reading is 1 s later, so each event has its own instant. */
let now = new Date('2026-03-02T09:00:00Z');
const clock = () => (now = new Date(now.getTime() + 1000));

async function ok(method: string, path: string, body?: unknown, token?: string) {
  const res = await t.api(method, path, { body, token });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

/** Every event the caller sees with this query, newest first, following the cursor. */
async function events(query: string, token?: string, path = '/v1/events') {
  const all: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok('GET', `${path}?${query}${cursor ? `&cursor=${cursor}` : ''}`, undefined, token);
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

const ids = (list: { subject: { id: string } }[]) => list.map((e) => e.subject.id);

let ana: { id: string; token: string };
let bo: { id: string; token: string };

async function memberWithToken(name: string) {
  const member = await ok('POST', '/v1/members', { name, role: 'member' });
  const token = await ok('POST', '/v1/tokens', { name, scopes: ['read', 'write'], member_id: member.id });
  return { id: member.id as string, token: token.token as string };
}

beforeAll(async () => {
  t = await startTestServer({}, { clock });
  ana = await memberWithToken('Ana');
  bo = await memberWithToken('Bo');
  await ok('POST', '/v1/boards', { name: 'History', slug: 'hist', ref_prefix: 'HIS' });
});
afterAll(async () => t?.close());

describe('who sees which events', () => {
  it("shows a todo's events to its owner alone, the organization's owner included", async () => {
    const personal = await ok('POST', '/v1/todos', { title: 'dentist' }, ana.token);
    const card = await ok('POST', '/v1/cards', { board: 'hist', title: 'Shared' });
    const mirrored = await ok('POST', '/v1/todos', { title: 'my part', card_id: card.ref }, ana.token);
    expect(ids(await events('type=todo.', ana.token))).toEqual(expect.arrayContaining([personal.id, mirrored.id]));
    expect(ids(await events('type=todo.'))).not.toContain(personal.id);
    expect(ids(await events('type=todo.'))).not.toContain(mirrored.id);
    expect(ids(await events('type=todo.', bo.token))).toEqual([]);
    // The criterion it made is the team's.
    const owners = await events(`subject=${card.ref}`);
    expect(owners.map((e) => e.type)).toEqual(['criterion.created', 'card.created']);
    expect((await events(`subject=${card.ref}`, ana.token)).map((e) => e.type)).toEqual(['criterion.created', 'todo.created', 'card.created']);
    // A subject the caller cannot see: an empty list, not an error.
    expect(await events(`subject=${personal.id}`)).toEqual([]);
  });

  it("shows token and member events to owners and admins, and a member their own", async () => {
    const token = await ok('POST', '/v1/tokens', { name: 'ana ci', scopes: ['read'] }, ana.token);
    await ok('PATCH', `/v1/members/${ana.id}`, { tz: 'Europe/Paris' });
    const anaSees = await events('type=token.,member.', ana.token);
    expect(anaSees.map((e) => [e.type, e.subject.id])).toEqual(
      expect.arrayContaining([
        ['token.created', token.id],
        ['member.updated', ana.id],
        ['member.created', ana.id],
      ]),
    );
    expect(anaSees.every((e) => e.subject.id === ana.id || e.data?.member_id === ana.id)).toBe(true);
    const boSees = await events('type=token.,member.', bo.token);
    expect(ids(boSees)).not.toContain(token.id);
    expect(ids(boSees)).not.toContain(ana.id);
    const ownerSees = await events('type=token.,member.');
    expect(ids(ownerSees)).toEqual(expect.arrayContaining([token.id, ana.id, bo.id]));
    const updated = ownerSees.find((e) => e.type === 'member.updated' && e.subject.id === ana.id);
    expect(updated.changes).toEqual({ tz: [null, 'Europe/Paris'] });
    expect(updated.actor).toEqual({ member_id: expect.any(String), name: 'Owner', agent: false, face: 'api' });
  });
});

describe('listEvents filters and pages', () => {
  it('filters by type and prefix, subject (a card with its criteria and todos), actor, agent and since', async () => {
    const card = await ok('POST', '/v1/cards', { board: 'hist', title: 'Filtered', criteria: ['first'] });
    const moved = await ok('PATCH', `/v1/cards/${card.id}`, { workflow_status: 'in_review' }, bo.token);
    const agent = await ok('POST', '/v1/tokens', { name: 'bot', scopes: ['read', 'write'], agent: true });
    await ok('PATCH', `/v1/cards/${card.ref}`, { title: 'Filtered by a bot' }, agent.token);
    const todo = await ok('POST', '/v1/todos', { title: 'mine', card_id: card.ref });
    await ok('POST', `/v1/todos/${todo.id}/done`);

    const history = await events(`subject=${card.ref}`);
    expect(history.map((e) => e.type)).toEqual(['criterion.updated', 'todo.completed', 'criterion.created', 'todo.created', 'card.updated', 'card.moved', 'card.created']);
    expect(history.every((e) => e.id.startsWith('evt_'))).toBe(true);
    expect((await events('limit=1', undefined, `/v1/cards/${card.ref}/activity`)).map((e) => e.type)).toEqual(history.map((e) => e.type));
    expect((await events(`subject=${card.id}&type=card.,todo.completed`)).map((e) => e.type)).toEqual(['todo.completed', 'card.updated', 'card.moved', 'card.created']);
    expect((await events(`subject=${card.id}&actor=${bo.id}`)).map((e) => e.type)).toEqual(['card.moved']);
    const byAgent = await events(`subject=${card.id}&agent=true`);
    expect(byAgent.map((e) => [e.type, e.actor.agent])).toEqual([['card.updated', true]]);
    expect((await events(`subject=${card.id}&agent=false`)).length).toBe(history.length - 1);
    const movedEvent = history.find((e) => e.type === 'card.moved');
    expect(movedEvent.data).toEqual(moved);
    // `since` includes its instant.
    const since = await events(`subject=${card.id}&since=${movedEvent.created_at}`);
    expect(since.map((e) => e.type).at(-1)).toBe('card.moved');
    expect(since.length).toBe(history.length - 1);
  });

  it('refuses unknown types and bad cursors, and answers 404 for the activity of no card', async () => {
    const bad = await t.api('GET', '/v1/events?type=card.flipped');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('type');
    expect((await t.api('GET', '/v1/events?cursor=garbage')).status).toBe(400);
    expect((await t.api('GET', '/v1/cards/HIS-999/activity')).status).toBe(404);
    expect((await t.api('GET', '/v1/events?since=yesterday')).status).toBe(422);
  });

  it("keeps a deleted card's history under its ref", async () => {
    const card = await ok('POST', '/v1/cards', { board: 'hist', title: 'Gone soon' });
    await ok('DELETE', `/v1/cards/${card.ref}`);
    expect((await events(`subject=${card.ref}`)).map((e) => e.type)).toEqual(['card.deleted', 'card.created']);
    expect((await events('', undefined, `/v1/cards/${card.ref}/activity`)).map((e) => e.type)).toEqual(['card.deleted', 'card.created']);
  });
});
