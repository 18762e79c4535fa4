import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTo } from './helpers/database.js';
import { expectEnvelope } from './helpers/envelope.js';
import { eventually } from './helpers/jobs.js';
import { createSecondOrg, type OtherOrg } from './helpers/second-org.js';
import { member, token as makeToken, type Fields } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * The editing surface of contract section 7 over /v1: correcting and removing todos,
 * milestones, boards and criteria, criteria in their order, and cards by milestone.
 */

let t: TestServer;
let orgId: string;
let memberId: string;
/** Mia: a member with read and write. */
let mia: string;
/** Mia again, with config:write in scope but not in role. */
let miaConfig: string;
/** The owner, with read only. */
let reader: string;
/** Vic: a viewer with read and write in scope. */
let viewer: string;
let other: OtherOrg;

async function token(body: Partial<Fields<'/tokens'>>): Promise<string> {
  return (await makeToken(t, body)).token;
}

async function created(method: string, path: string, body: Record<string, unknown>, as?: string) {
  const res = await t.api(method, path, { body, token: as });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const titles = (res: { body: { data: { title: string }[] } }) => res.body.data.map((c) => c.title);

beforeAll(async () => {
  t = await startTestServer();
  orgId = (await t.api('GET', '/v1/me')).body.org.id;
  memberId = (await member(t, { name: 'Mia', role: 'member' })).id;
  mia = await token({ name: 'mia', member_id: memberId });
  miaConfig = await token({ name: 'mia config', member_id: memberId, scopes: ['read', 'write', 'config:write'] });
  reader = await token({ name: 'reader', scopes: ['read'] });
  const vic = await member(t, { name: 'Vic', role: 'viewer' });
  viewer = await token({ name: 'vic', member_id: vic.id });
  other = await createSecondOrg(t.server.db.db);
  await created('POST', '/v1/boards', { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' });
});
afterAll(async () => t?.close());

describe('updateTodo', () => {
  it('changes title, priority and due date, keeps what is not given, and clears the date with null', async () => {
    const todo = await created('POST', '/v1/todos', { title: 'Fix teh typo', due_on: '2026-03-01', priority: 'low' });
    const fixed = await t.api('PATCH', `/v1/todos/${todo.id}`, { body: { title: 'Fix the typo' } });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ id: todo.id, title: 'Fix the typo', priority: 'low', due_on: '2026-03-01', done: false });
    const redated = await t.api('PATCH', `/v1/todos/${todo.id}`, { body: { priority: 'urgent', due_on: '2026-03-05' } });
    expect(redated.body).toMatchObject({ title: 'Fix the typo', priority: 'urgent', due_on: '2026-03-05' });
    const cleared = await t.api('PATCH', `/v1/todos/${todo.id}`, { body: { due_on: null } });
    expect(cleared.body).toMatchObject({ title: 'Fix the typo', priority: 'urgent', due_on: null });
    const listed = (await t.api('GET', '/v1/todos?limit=100')).body.data.find((x: { id: string }) => x.id === todo.id);
    expect(listed).toEqual(cleared.body);
  });

  it('refuses bad input field by field and an empty body, changing nothing', async () => {
    const todo = await created('POST', '/v1/todos', { title: 'unchanged', due_on: '2026-03-01' });
    const bad = await t.api('PATCH', `/v1/todos/${todo.id}`, { body: { title: '  ', priority: 'someday', due_on: '2026-02-30' } });
    expectEnvelope(bad, 422, 'validation_failed');
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['due_on', 'priority', 'title']);
    expectEnvelope(await t.api('PATCH', `/v1/todos/${todo.id}`, { body: {} }), 422, 'validation_failed');
    const after = (await t.api('GET', '/v1/todos?limit=100')).body.data.find((x: { id: string }) => x.id === todo.id);
    expect(after).toEqual(todo);
  });

  it("answers 404 todo_not_found for another member's todo and another organization's, changing nothing", async () => {
    const hers = await created('POST', '/v1/todos', { title: 'hers', org_id: orgId }, mia);
    for (const as of [undefined, other.token]) {
      expectEnvelope(await t.api('PATCH', `/v1/todos/${hers.id}`, { token: as, body: { title: 'taken over' } }), 404, 'todo_not_found');
      expectEnvelope(await t.api('DELETE', `/v1/todos/${hers.id}`, { token: as }), 404, 'todo_not_found');
    }
    expect((await t.api('GET', '/v1/todos', { token: mia })).body.data).toEqual([hers]);
  });

  it('needs the write scope and a role above viewer', async () => {
    const todo = await created('POST', '/v1/todos', { title: 'mine' });
    expectEnvelope(await t.api('PATCH', `/v1/todos/${todo.id}`, { token: reader, body: { title: 'x' } }), 403, 'insufficient_scope');
    expectEnvelope(await t.api('DELETE', `/v1/todos/${todo.id}`, { token: reader }), 403, 'insufficient_scope');
    expectEnvelope(await t.api('PATCH', `/v1/todos/${todo.id}`, { token: viewer, body: { title: 'x' } }), 403, 'forbidden_role');
  });

  it('replays a repeated Idempotency-Key and refuses the key with another body', async () => {
    const todo = await created('POST', '/v1/todos', { title: 'keyed' });
    const headers = { 'idempotency-key': `todo-${todo.id}` };
    const first = await t.api('PATCH', `/v1/todos/${todo.id}`, { headers, body: { title: 'keyed once' } });
    const again = await t.api('PATCH', `/v1/todos/${todo.id}`, { headers, body: { title: 'keyed once' } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expectEnvelope(await t.api('PATCH', `/v1/todos/${todo.id}`, { headers, body: { title: 'other' } }), 409, 'idempotency_key_reused');
  });

  it("keeps a mirrored criterion's title equal to the todo's, both ways", async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'mirrors' });
    const todo = await created('POST', '/v1/todos', { title: 'wirte docs', card_id: card.ref });
    expect((await t.api('PATCH', `/v1/todos/${todo.id}`, { body: { title: 'write docs' } })).status).toBe(200);
    const [criterion] = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data;
    expect(criterion).toMatchObject({ id: todo.criterion_id, title: 'write docs', todo_id: todo.id });
    const renamed = await t.api('PATCH', `/v1/cards/${card.id}/criteria/${criterion.id}`, { body: { title: 'write the docs' } });
    expect(renamed.body.title).toBe('write the docs');
    const mirrored = (await t.api('GET', '/v1/todos?limit=100')).body.data.find((x: { id: string }) => x.id === todo.id);
    expect(mirrored.title).toBe('write the docs');
  });

  it('gives an existing criterion the title of the todo made to mirror it', async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'mirrors an existing one', criteria: ['tests'] });
    const [criterion] = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data;
    const todo = await created('POST', '/v1/todos', { title: 'write the tests', card_id: card.id, criterion_id: criterion.id });
    expect(todo).toMatchObject({ title: 'write the tests', criterion_id: criterion.id });
    const [after] = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data;
    expect(after).toMatchObject({ id: criterion.id, title: 'write the tests', todo_id: todo.id });
  });
});

describe('deleteTodo', () => {
  it('deletes a todo of your own: 204, then 404 todo_not_found everywhere', async () => {
    const todo = await created('POST', '/v1/todos', { title: 'gone soon' });
    const res = await t.api('DELETE', `/v1/todos/${todo.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectEnvelope(await t.api('DELETE', `/v1/todos/${todo.id}`), 404, 'todo_not_found');
    expectEnvelope(await t.api('PATCH', `/v1/todos/${todo.id}`, { body: { title: 'back' } }), 404, 'todo_not_found');
    expectEnvelope(await t.api('POST', `/v1/todos/${todo.id}/done`), 404, 'todo_not_found');
    expect((await t.api('GET', '/v1/todos?limit=100')).body.data.map((x: { id: string }) => x.id)).not.toContain(todo.id);
  });

  it('leaves the criterion it mirrored on its card, unlinked, ticked as it was', async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'keeps its criterion' });
    const todo = await created('POST', '/v1/todos', { title: 'the criterion', card_id: card.id });
    await t.api('POST', `/v1/todos/${todo.id}/done`);
    expect((await t.api('DELETE', `/v1/todos/${todo.id}`)).status).toBe(204);
    const criteria = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data;
    expect(criteria).toEqual([expect.objectContaining({ id: todo.criterion_id, title: 'the criterion', done: true, todo_id: null })]);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body).toMatchObject({ criteria_done: 1, criteria_total: 1 });
  });
});

describe('milestones: get, update, delete', () => {
  it('gets a milestone by ref (any case) or id, with the numbers of its status', async () => {
    const m = await created('POST', '/v1/milestones', { ref: 'G1', name: 'Get me', kind: 'deadline', ends_on: '2026-06-30' });
    await created('POST', '/v1/cards', { board: 'eng', title: 'in G1', milestone: 'G1', criteria: ['a'] });
    const got = await t.api('GET', '/v1/milestones/g1');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: m.id, ref: 'G1', name: 'Get me', cards_total: 1, criteria_total: 1 });
    expect(got.body).toEqual((await t.api('GET', '/v1/milestones/G1/status')).body);
    expect((await t.api('GET', `/v1/milestones/${m.id}`)).body).toEqual(got.body);
    expectEnvelope(await t.api('GET', '/v1/milestones/NOPE'), 404, 'milestone_not_found');
  });

  it('renames the ref, name, kind and end date; cards and filters follow the new ref', async () => {
    const m = await created('POST', '/v1/milestones', { ref: 'U1', name: 'Sprnt', ends_on: '2026-04-30' });
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'in U1', milestone: 'U1' });
    const res = await t.api('PATCH', '/v1/milestones/u1', { body: { ref: 'U2', name: 'Sprint', kind: 'deadline' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: m.id, ref: 'U2', name: 'Sprint', kind: 'deadline', ends_on: '2026-04-30', cards_total: 1 });
    const cleared = await t.api('PATCH', '/v1/milestones/U2', { body: { ends_on: null } });
    expect(cleared.body).toMatchObject({ ref: 'U2', ends_on: null });
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.milestone).toBe('U2');
    expect((await t.api('GET', '/v1/cards?milestone=U2')).body.data.map((c: { id: string }) => c.id)).toEqual([card.id]);
    expectEnvelope(await t.api('GET', '/v1/milestones/U1'), 404, 'milestone_not_found');
  });

  it('refuses a taken ref with 409, bad fields with 422 and an empty body, changing nothing', async () => {
    await created('POST', '/v1/milestones', { ref: 'TAKEN', name: 'Taken' });
    const m = await created('POST', '/v1/milestones', { ref: 'FREE', name: 'Free' });
    expectEnvelope(await t.api('PATCH', '/v1/milestones/FREE', { body: { ref: 'taken' } }), 409, 'milestone_conflict');
    const bad = await t.api('PATCH', '/v1/milestones/FREE', { body: { ref: 'has space', kind: 'epic', ends_on: '2026-02-30' } });
    expectEnvelope(bad, 422, 'validation_failed');
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['ends_on', 'kind', 'ref']);
    expectEnvelope(await t.api('PATCH', '/v1/milestones/FREE', { body: {} }), 422, 'validation_failed');
    expect((await t.api('GET', '/v1/milestones/FREE')).body).toMatchObject({ id: m.id, ref: 'FREE', name: 'Free', kind: 'sprint' });
  });

  it('carries channel subscriptions to the new ref, and ends them with the milestone', async () => {
    const m = await created('POST', '/v1/milestones', { ref: 'SUB1', name: 'Subscribed' });
    const db = t.server.db.db;
    await db
      .insertInto('slack_subscriptions')
      .values({ id: `sub_${m.id}`, org_id: orgId, milestone_ref: 'SUB1', channel_id: 'C0SUBS', cadence: 'daily', tz: 'UTC', created_by: memberId })
      .execute();
    const refsOf = async () => (await db.selectFrom('slack_subscriptions').select('milestone_ref').where('channel_id', '=', 'C0SUBS').execute()).map((r) => r.milestone_ref);
    await t.api('PATCH', '/v1/milestones/sub1', { body: { ref: 'SUB2' } });
    expect(await refsOf()).toEqual(['SUB2']);
    expect((await t.api('DELETE', '/v1/milestones/SUB2')).status).toBe(204);
    expect(await refsOf()).toEqual([]);
  });

  it('deletes a milestone: its cards stay, out of any milestone; then 404 milestone_not_found', async () => {
    const m = await created('POST', '/v1/milestones', { ref: 'D1', name: 'Doomed' });
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'survives', milestone: 'D1', criteria: ['x'] });
    const res = await t.api('DELETE', '/v1/milestones/d1');
    expect(res.status).toBe(204);
    const after = (await t.api('GET', `/v1/cards/${card.id}`)).body;
    expect(after).toMatchObject({ id: card.id, title: 'survives', milestone: null, criteria_total: 1 });
    expect(after.updated_at > card.updated_at).toBe(true);
    for (const path of ['/v1/milestones/D1', `/v1/milestones/${m.id}`, '/v1/milestones/D1/status', '/v1/cards?milestone=D1']) {
      expectEnvelope(await t.api('GET', path), 404, 'milestone_not_found');
    }
    expectEnvelope(await t.api('DELETE', '/v1/milestones/D1'), 404, 'milestone_not_found');
    expectEnvelope(await t.api('PATCH', `/v1/cards/${card.id}`, { body: { milestone: 'D1' } }), 404, 'milestone_not_found');
    // The ref is free again.
    expect((await t.api('POST', '/v1/milestones', { body: { ref: 'D1', name: 'Reborn' } })).status).toBe(201);
  });

  it("hides another organization's milestones as 404 and keeps readers and viewers out", async () => {
    await created('POST', '/v1/milestones', { ref: 'MINE', name: 'Mine' });
    for (const [method, body] of [['GET'], ['PATCH', { name: 'theirs' }], ['DELETE']] as const) {
      expectEnvelope(await t.api(method, '/v1/milestones/MINE', { token: other.token, body }), 404, 'milestone_not_found');
    }
    expectEnvelope(await t.api('PATCH', '/v1/milestones/MINE', { token: reader, body: { name: 'x' } }), 403, 'insufficient_scope');
    expectEnvelope(await t.api('DELETE', '/v1/milestones/MINE', { token: viewer }), 403, 'forbidden_role');
    expect((await t.api('GET', '/v1/milestones/MINE', { token: viewer })).body.name).toBe('Mine');
    expect((await t.api('PATCH', '/v1/milestones/MINE', { token: mia, body: { name: 'Ours' } })).body.name).toBe('Ours');
  });
});

describe('boards: get, delete', () => {
  it('gets a board by id or slug, and hides another organization’s as 404', async () => {
    const b = await created('POST', '/v1/boards', { name: 'Lookup', slug: 'lookup', ref_prefix: 'LOOK', gated: true });
    expect((await t.api('GET', '/v1/boards/lookup')).body).toEqual(b);
    expect((await t.api('GET', `/v1/boards/${b.id}`, { token: viewer })).body).toEqual(b);
    expectEnvelope(await t.api('GET', `/v1/boards/${b.id}`, { token: other.token }), 404, 'board_not_found');
    expectEnvelope(await t.api('DELETE', '/v1/boards/lookup', { token: other.token }), 404, 'board_not_found');
    expectEnvelope(await t.api('GET', '/v1/boards/nope'), 404, 'board_not_found');
  });

  it('refuses to delete a board with cards (409 board_not_empty), deletes it once empty', async () => {
    const b = await created('POST', '/v1/boards', { name: 'Short lived', slug: 'short', ref_prefix: 'SHO' });
    const card = await created('POST', '/v1/cards', { board: 'short', title: 'still here' });
    expectEnvelope(await t.api('DELETE', '/v1/boards/short'), 409, 'board_not_empty');
    expect((await t.api('GET', `/v1/cards/${card.id}`)).status).toBe(200);
    expect((await t.api('DELETE', `/v1/cards/${card.id}`)).status).toBe(204);
    expect((await t.api('DELETE', `/v1/boards/${b.id}`)).status).toBe(204);
    expectEnvelope(await t.api('GET', '/v1/boards/short'), 404, 'board_not_found');
    expectEnvelope(await t.api('DELETE', '/v1/boards/short'), 404, 'board_not_found');
    expectEnvelope(await t.api('POST', '/v1/cards', { body: { board: 'short', title: 'x' } }), 404, 'board_not_found');
    expect((await t.api('GET', '/v1/boards?limit=100')).body.data.map((x: { id: string }) => x.id)).not.toContain(b.id);
    // Slug and prefix are free again.
    expect((await t.api('POST', '/v1/boards', { body: { name: 'Again', slug: 'short', ref_prefix: 'SHO' } })).status).toBe(201);
  });

  it('never deletes a card made while the board is being deleted', async () => {
    const b = await created('POST', '/v1/boards', { name: 'Raced', slug: 'raced', ref_prefix: 'RAC' });
    // A card creation in flight, as createCard makes it: the board's counter row, then the card.
    const writer = await connectTo(t.database!.url);
    try {
      await writer.query('begin');
      await writer.query(`update boards set next_ref = next_ref + 1 where id = $1`, [b.id]);
      await writer.query(`insert into cards (id, org_id, board_id, number, title) values ('crd_raced', $1, $2, 1, 'in flight')`, [orgId, b.id]);
      const deleting = t.api('DELETE', '/v1/boards/raced');
      const waiting = () => t.database!.query(`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
      await eventually(async () => (await waiting()).length > 0, 10_000, 'the delete to wait for the board row');
      await writer.query('commit');
      expectEnvelope(await deleting, 409, 'board_not_empty');
    } finally {
      await writer.end();
    }
    expect((await t.api('GET', '/v1/cards/crd_raced')).body.title).toBe('in flight');
  });

  it('needs config:write and the owner or admin role to delete', async () => {
    await created('POST', '/v1/boards', { name: 'Guarded', slug: 'guarded', ref_prefix: 'GUA' });
    expectEnvelope(await t.api('DELETE', '/v1/boards/guarded', { token: mia }), 403, 'insufficient_scope');
    expectEnvelope(await t.api('DELETE', '/v1/boards/guarded', { token: miaConfig }), 403, 'forbidden_role');
    expect((await t.api('GET', '/v1/boards/guarded', { token: mia })).status).toBe(200);
  });
});

describe('criteria in order', () => {
  it('lists criteria in the order given, a new one last, positions from 0', async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'ordered', criteria: ['first', 'second', 'third'] });
    await created('POST', `/v1/cards/${card.ref}/criteria`, { title: 'fourth' });
    const list = await t.api('GET', `/v1/cards/${card.id}/criteria`);
    expect(titles(list)).toEqual(['first', 'second', 'third', 'fourth']);
    expect(list.body.data.map((c: { position: number }) => c.position)).toEqual([0, 1, 2, 3]);
    const p1 = await t.api('GET', `/v1/cards/${card.id}/criteria?limit=3`);
    const p2 = await t.api('GET', `/v1/cards/${card.id}/criteria?limit=3&cursor=${p1.body.next_cursor}`);
    expect([...titles(p1), ...titles(p2)]).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('moves a criterion to a position, keeping the others in order', async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'reorder', criteria: ['a', 'b', 'c', 'd'] });
    const ids = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data.map((c: { id: string }) => c.id);
    const moved = await t.api('PATCH', `/v1/cards/${card.id}/criteria/${ids[3]}`, { body: { position: 0 } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: ids[3], title: 'd', position: 0 });
    expect(titles(await t.api('GET', `/v1/cards/${card.id}/criteria`))).toEqual(['d', 'a', 'b', 'c']);
    await t.api('PATCH', `/v1/cards/${card.id}/criteria/${ids[0]}`, { body: { position: 3, done: true } });
    const list = await t.api('GET', `/v1/cards/${card.id}/criteria`);
    expect(titles(list)).toEqual(['d', 'b', 'c', 'a']);
    expect(list.body.data.map((c: { position: number }) => c.position)).toEqual([0, 1, 2, 3]);
    expect(list.body.data[3]).toMatchObject({ title: 'a', done: true });
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body).toMatchObject({ criteria_done: 1, criteria_total: 4 });
  });

  it('refuses a position past the last, negative or not whole, changing nothing', async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'bounds', criteria: ['a', 'b'] });
    const [a] = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data;
    for (const position of [2, -1, 0.5, '1']) {
      const res = await t.api('PATCH', `/v1/cards/${card.id}/criteria/${a.id}`, { body: { position, title: 'renamed' } });
      expectEnvelope(res, 422, 'validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['position']);
    }
    const list = await t.api('GET', `/v1/cards/${card.id}/criteria`);
    expect(titles(list)).toEqual(['a', 'b']);
  });

  it('deletes a criterion: the rest close up, a page already read never shifts, a mirroring todo stays unlinked', async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'pruned', criteria: ['a', 'b', 'c'] });
    const todo = await created('POST', '/v1/todos', { title: 'd', card_id: card.id });
    const [a, b] = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data;
    const page1 = await t.api('GET', `/v1/cards/${card.id}/criteria?limit=2`);
    expect(titles(page1)).toEqual(['a', 'b']);
    expect((await t.api('DELETE', `/v1/cards/${card.id}/criteria/${a.id}`)).status).toBe(204);
    const page2 = await t.api('GET', `/v1/cards/${card.id}/criteria?limit=2&cursor=${page1.body.next_cursor}`);
    expect(titles(page2)).toEqual(['c', 'd']);
    const rest = await t.api('GET', `/v1/cards/${card.id}/criteria`);
    expect(rest.body.data.map((c: { title: string; position: number }) => [c.title, c.position])).toEqual([['b', 0], ['c', 1], ['d', 2]]);

    expect((await t.api('DELETE', `/v1/cards/${card.ref}/criteria/${todo.criterion_id}`)).status).toBe(204);
    const kept = (await t.api('GET', '/v1/todos?limit=100')).body.data.find((x: { id: string }) => x.id === todo.id);
    expect(kept).toMatchObject({ id: todo.id, title: 'd', done: false });
    expect(kept).not.toHaveProperty('card_id');
    expect(kept).not.toHaveProperty('criterion_id');
    expect((await t.api('POST', `/v1/todos/${todo.id}/done`)).body.done).toBe(true);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body).toMatchObject({ criteria_done: 0, criteria_total: 2 });

    expectEnvelope(await t.api('DELETE', `/v1/cards/${card.id}/criteria/${a.id}`), 404, 'criterion_not_found');
    expectEnvelope(await t.api('PATCH', `/v1/cards/${card.id}/criteria/${a.id}`, { body: { done: true } }), 404, 'criterion_not_found');
    const elsewhere = await created('POST', '/v1/cards', { board: 'eng', title: 'other card' });
    expectEnvelope(await t.api('DELETE', `/v1/cards/${elsewhere.id}/criteria/${b.id}`), 404, 'criterion_not_found');
  });

  it("hides another organization's criteria and keeps readers and viewers out", async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'guarded criteria', criteria: ['a'] });
    const [a] = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data;
    expectEnvelope(await t.api('DELETE', `/v1/cards/${card.id}/criteria/${a.id}`, { token: other.token }), 404, 'card_not_found');
    expectEnvelope(await t.api('DELETE', `/v1/cards/${card.id}/criteria/${a.id}`, { token: reader }), 403, 'insufficient_scope');
    expectEnvelope(await t.api('DELETE', `/v1/cards/${card.id}/criteria/${a.id}`, { token: viewer }), 403, 'forbidden_role');
    expect(titles(await t.api('GET', `/v1/cards/${card.id}/criteria`))).toEqual(['a']);
  });
});

describe('listCards by milestone', () => {
  it('filters by milestone ref, binds the cursor to it, and answers 404 for an unknown ref', async () => {
    await created('POST', '/v1/milestones', { ref: 'F1', name: 'Filter 1' });
    await created('POST', '/v1/milestones', { ref: 'F2', name: 'Filter 2' });
    const a = await created('POST', '/v1/cards', { board: 'eng', title: 'f1 a', milestone: 'F1' });
    await created('POST', '/v1/cards', { board: 'eng', title: 'f2', milestone: 'F2' });
    const b = await created('POST', '/v1/cards', { board: 'eng', title: 'f1 b', milestone: 'F1' });
    const all = await t.api('GET', '/v1/cards?milestone=f1');
    expect(all.body.data.map((c: { id: string }) => c.id)).toEqual([b.id, a.id]);
    const p1 = await t.api('GET', '/v1/cards?milestone=F1&limit=1');
    const p2 = await t.api('GET', `/v1/cards?milestone=F1&limit=1&cursor=${p1.body.next_cursor}`);
    expect([...p1.body.data, ...p2.body.data].map((c: { id: string }) => c.id)).toEqual([b.id, a.id]);
    expectEnvelope(await t.api('GET', `/v1/cards?milestone=F2&limit=1&cursor=${p1.body.next_cursor}`), 400, 'invalid_cursor');
    expectEnvelope(await t.api('GET', '/v1/cards?milestone=NOPE'), 404, 'milestone_not_found');
    expectEnvelope(await t.api('GET', '/v1/cards?milestone=F1', { token: other.token }), 404, 'milestone_not_found');
  });
});

describe('listCardMoves', () => {
  const STATES = ['backlog', 'in_progress', 'in_review', 'done'];
  let agent: string;

  beforeAll(async () => {
    agent = await token({ name: 'agent', agent: true });
    await created('POST', '/v1/boards', { name: 'Gated', slug: 'gated', ref_prefix: 'GAT', gated: true });
  });

  const movesOf = async (key: string, as?: string) => {
    const res = await t.api('GET', `/v1/cards/${key}/moves`, { token: as });
    expect(res.status, res.text).toBe(200);
    return res.body.data as { workflow_status: string; allowed: boolean; code: string | null }[];
  };
  const refused = (moves: Awaited<ReturnType<typeof movesOf>>) =>
    Object.fromEntries(moves.filter((m) => !m.allowed).map((m) => [m.workflow_status, m.code]));

  it('lists every state once, in order, all allowed for a human', async () => {
    const card = await created('POST', '/v1/cards', { board: 'gated', title: 'human moves' });
    const moves = await movesOf(card.ref);
    expect(moves).toEqual(STATES.map((s) => ({ workflow_status: s, allowed: true, code: null })));
    expect(await movesOf(card.id, mia)).toEqual(moves);
  });

  it("shows the gate to an agent on a gated board, as moveCard enforces it, the current state included", async () => {
    const card = await created('POST', '/v1/cards', { board: 'gated', title: 'agent moves' });
    for (const from of ['backlog', 'in_review']) {
      await t.api('PATCH', `/v1/cards/${card.id}`, { body: { workflow_status: from } });
      const moves = await movesOf(card.id, agent);
      expect(moves.map((m) => m.workflow_status)).toEqual(STATES);
      expect(refused(moves)).toEqual({ done: 'gated_move_requires_human' });
      // Every listed answer is what a move there answers.
      for (const m of moves.filter((x) => x.workflow_status !== from)) {
        const res = await t.api('PATCH', `/v1/cards/${card.id}`, { token: agent, body: { workflow_status: m.workflow_status } });
        expect(res.status === 200, m.workflow_status).toBe(m.allowed);
        if (!m.allowed) expect(res.body.code).toBe(m.code);
        await t.api('PATCH', `/v1/cards/${card.id}`, { body: { workflow_status: from } });
      }
    }
    // A done card of a gated board: a move to done is refused to an agent whatever the card's
    // state, so done is not allowed for it there either (allowed means the move succeeds).
    await t.api('PATCH', `/v1/cards/${card.id}`, { body: { workflow_status: 'done' } });
    expect(refused(await movesOf(card.id, agent))).toEqual({ done: 'gated_move_requires_human' });
    expectEnvelope(await t.api('PATCH', `/v1/cards/${card.id}`, { token: agent, body: { workflow_status: 'done' } }), 403, 'gated_move_requires_human');
    const ungated = await created('POST', '/v1/cards', { board: 'eng', title: 'free' });
    expect(refused(await movesOf(ungated.id, agent))).toEqual({});
  });

  it("gives a viewer's and a read-only token's refusal codes, for every state: they move nothing", async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'read only' });
    const all = (code: string) => Object.fromEntries(STATES.map((s) => [s, code]));
    expect(refused(await movesOf(card.id, viewer))).toEqual(all('forbidden_role'));
    expect(refused(await movesOf(card.id, reader))).toEqual(all('insufficient_scope'));
    expectEnvelope(await t.api('PATCH', `/v1/cards/${card.id}`, { token: viewer, body: { workflow_status: 'done' } }), 403, 'forbidden_role');
    expectEnvelope(await t.api('PATCH', `/v1/cards/${card.id}`, { token: viewer, body: { workflow_status: 'backlog' } }), 403, 'forbidden_role');
    expectEnvelope(await t.api('PATCH', `/v1/cards/${card.id}`, { token: reader, body: { workflow_status: 'backlog' } }), 403, 'insufficient_scope');
  });

  it("answers 404 card_not_found for an unknown card and another organization's", async () => {
    const card = await created('POST', '/v1/cards', { board: 'eng', title: 'hidden moves' });
    expectEnvelope(await t.api('GET', `/v1/cards/${card.id}/moves`, { token: other.token }), 404, 'card_not_found');
    expectEnvelope(await t.api('GET', `/v1/cards/${card.ref}/moves`, { token: other.token }), 404, 'card_not_found');
    expectEnvelope(await t.api('GET', '/v1/cards/ENG-9999/moves'), 404, 'card_not_found');
  });
});
