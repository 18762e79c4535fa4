import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecondOrg } from './helpers/second-org.js';
import { memberWithToken, todo as makeTodo, type Fields } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
let orgId: string;
/** The app's clock; tests move it around midnight. With `ticking`, every reading is 1 ms later. */
let now = new Date('2026-01-16T04:30:00Z');
let ticking = false;
const clock = () => {
  if (ticking) now = new Date(now.getTime() + 1);
  return now;
};

async function todo(body: Fields<'/todos'>, token?: string) {
  return makeTodo(t, body, { as: token });
}

beforeAll(async () => {
  t = await startTestServer({}, { clock });
  const me = (await t.api('GET', '/v1/me')).body;
  orgId = me.org.id;
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Todo board', slug: 'tb', ref_prefix: 'TB' } })).status).toBe(201);
});
afterAll(async () => t?.close());

describe('todos', () => {
  it('creates personal and organization todos with priority medium by default', async () => {
    const personal = await todo({ title: 'dentist', due_on: '2026-02-02' });
    expect(personal).toMatchObject({ title: 'dentist', priority: 'medium', due_on: '2026-02-02', done: false, done_at: null });
    expect(personal).not.toHaveProperty('org_id');
    expect(personal).not.toHaveProperty('card_id');
    expect(personal.id).toMatch(/^todo_/);
    const work = await todo({ title: 'review', priority: 'urgent', org_id: orgId });
    expect(work).toMatchObject({ org_id: orgId, priority: 'urgent', due_on: null });

    const org = await t.api('GET', '/v1/todos?scope=org&limit=100');
    expect(org.body.data.map((x: { id: string }) => x.id)).toContain(work.id);
    expect(org.body.data.map((x: { id: string }) => x.id)).not.toContain(personal.id);
    const mine = await t.api('GET', '/v1/todos?scope=personal&limit=100');
    expect(mine.body.data.map((x: { id: string }) => x.id)).toContain(personal.id);
    expect(mine.body.data.map((x: { id: string }) => x.id)).not.toContain(work.id);
    const both = await t.api('GET', '/v1/todos?limit=100');
    expect(both.body.data.slice(0, 2).map((x: { id: string }) => x.id)).toEqual([work.id, personal.id]);
  });

  it('refuses another organization id and bad priorities', async () => {
    const other = await createSecondOrg(t.server.db.db);
    const res = await t.api('POST', '/v1/todos', { body: { title: 'x', org_id: other.orgId } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('organization_not_found');
    const bad = await t.api('POST', '/v1/todos', { body: { title: 'x', priority: 'someday' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('priority');
  });

  it("keeps each member's todos their own: another member's todo is 404", async () => {
    const tok = (await memberWithToken(t, { name: 'Nora', role: 'member' }, { name: 'nora', scopes: ['read', 'write'] })).token;
    const hers = await todo({ title: 'hers', org_id: orgId }, tok);
    const done = await t.api('POST', `/v1/todos/${hers.id}/done`);
    expect(done.status).toBe(404);
    expect(done.body.code).toBe('todo_not_found');
    expect((await t.api('POST', `/v1/todos/${hers.id}/reopen`)).status).toBe(404);
    const list = await t.api('GET', '/v1/todos?limit=100');
    expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(hers.id);
    const own = await t.api('GET', '/v1/todos', { token: tok });
    expect(own.body.data.map((x: { id: string }) => x.id)).toEqual([hers.id]);
    expect((await t.api('GET', '/v1/todos/' + hers.id + '/done')).status).toBe(405);
  });

  it('filters done with a real boolean parse ("false" is false) and binds cursors to filters', async () => {
    const open = await todo({ title: 'open one' });
    const closed = await todo({ title: 'closed one' });
    expect((await t.api('POST', `/v1/todos/${closed.id}/done`)).body.done).toBe(true);
    const notDone = await t.api('GET', '/v1/todos?done=false&limit=100');
    const ids = notDone.body.data.map((x: { id: string }) => x.id);
    expect(ids).toContain(open.id);
    expect(ids).not.toContain(closed.id);
    const isDone = await t.api('GET', '/v1/todos?done=true&limit=100');
    expect(isDone.body.data.map((x: { id: string }) => x.id)).toEqual([closed.id]);
    expect((await t.api('GET', '/v1/todos?done=maybe')).status).toBe(422);

    const p1 = await t.api('GET', '/v1/todos?done=false&limit=1');
    expect(p1.body.data).toHaveLength(1);
    const p2 = await t.api('GET', `/v1/todos?done=false&limit=1&cursor=${p1.body.next_cursor}`);
    expect(p2.status).toBe(200);
    expect(p2.body.data[0].id).not.toBe(p1.body.data[0].id);
    expect((await t.api('GET', `/v1/todos?done=true&limit=1&cursor=${p1.body.next_cursor}`)).body.code).toBe('invalid_cursor');
  });

  it('reopens a todo, and completing a done todo changes nothing', async () => {
    const x = await todo({ title: 'twice' });
    const first = await t.api('POST', `/v1/todos/${x.id}/done`);
    now = new Date(now.getTime() + 60_000);
    const again = await t.api('POST', `/v1/todos/${x.id}/done`);
    expect(again.status).toBe(200);
    expect(again.body.done_at).toBe(first.body.done_at);
    const reopened = await t.api('POST', `/v1/todos/${x.id}/reopen`);
    expect(reopened.body).toMatchObject({ done: false, done_at: null });
  });
});

describe('todos mirroring card criteria', () => {
  it('ticks the criterion on complete and unticks it on reopen; card and milestone counts follow', async () => {
    await t.api('POST', '/v1/milestones', { body: { ref: 'T1', name: 'Todo sprint', kind: 'deadline', ends_on: '2026-02-01' } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'tb', title: 'linked', milestone: 'T1', criteria: ['existing'] } })).body;
    const x = await todo({ title: 'write docs', card_id: card.ref, due_on: '2026-01-20' });
    expect(x).toMatchObject({ card_id: card.id, org_id: orgId, done: false });
    expect(x.criterion_id).toMatch(/^crit_/);
    const criteria = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data;
    expect(criteria[1]).toMatchObject({ id: x.criterion_id, title: 'write docs', done: false, todo_id: x.id, position: 1 });

    expect((await t.api('GET', `/v1/cards/${card.id}`)).body).toMatchObject({ criteria_done: 0, criteria_total: 2 });
    expect((await t.api('GET', '/v1/milestones/T1/status')).body).toMatchObject({ criteria_done: 0, criteria_total: 2 });
    const done = await t.api('POST', `/v1/todos/${x.id}/done`);
    expect(done.body.done).toBe(true);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body).toMatchObject({ criteria_done: 1, criteria_total: 2 });
    expect((await t.api('GET', '/v1/milestones/T1/status')).body).toMatchObject({ criteria_done: 1, criteria_total: 2, cards_done: 0 });
    await t.api('POST', `/v1/todos/${x.id}/reopen`);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.criteria_done).toBe(0);
    expect((await t.api('GET', '/v1/milestones/T1/status')).body.criteria_done).toBe(0);
  });

  it('mirrors an existing criterion, follows a tick made on the card, and links a criterion once', async () => {
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'tb', title: 'existing', criteria: ['a'] } })).body;
    const crit = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data[0];
    const x = await todo({ title: 'do a', card_id: card.id, criterion_id: crit.id });
    expect(x).toMatchObject({ card_id: card.id, criterion_id: crit.id });
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.criteria_total).toBe(1);
    const dup = await t.api('POST', '/v1/todos', { body: { title: 'again', criterion_id: crit.id } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('criterion_already_linked');

    await t.api('PATCH', `/v1/cards/${card.id}/criteria/${crit.id}`, { body: { done: true } });
    const list = await t.api('GET', '/v1/todos?done=true&limit=100');
    expect(list.body.data.map((y: { id: string }) => y.id)).toContain(x.id);

    const wrongCard = (await t.api('POST', '/v1/cards', { body: { board: 'tb', title: 'other' } })).body;
    const mismatch = await t.api('POST', '/v1/todos', { body: { title: 'b', card_id: wrongCard.id, criterion_id: crit.id } });
    expect(mismatch.body.code).toBe('criterion_not_found');
    expect((await t.api('POST', '/v1/todos', { body: { title: 'c', card_id: 'TB-999' } })).body.code).toBe('card_not_found');
  });

  it('ticks the criterion once under 20 concurrent completeTodo calls', async () => {
    await t.api('POST', '/v1/milestones', { body: { ref: 'T2', name: 'Race' } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'tb', title: 'race', milestone: 'T2', criteria: ['other'] } })).body;
    const x = await todo({ title: 'race me', card_id: card.id });
    ticking = true;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.api('POST', `/v1/todos/${x.id}/done`, { headers: { 'idempotency-key': `race-${i}` } })),
    );
    ticking = false;
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    // Each call reads a later clock: only one of them may have written done_at.
    const stamps = new Set(results.map((r) => r.body.done_at));
    expect(stamps.size).toBe(1);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body).toMatchObject({ criteria_done: 1, criteria_total: 2 });
    expect((await t.api('GET', '/v1/milestones/T2/status')).body).toMatchObject({ criteria_done: 1, criteria_total: 2 });
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: t.database!.url });
    await client.connect();
    const { rows } = await client.query(
      'select k.done, k.updated_at = t.done_at as same_write from criteria k join todos t on t.criterion_id = k.id where k.id = $1',
      [x.criterion_id],
    );
    await client.end();
    expect(rows).toEqual([{ done: true, same_write: true }]);
  });

  it('unlinks mirroring todos when their card is deleted', async () => {
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'tb', title: 'doomed' } })).body;
    const x = await todo({ title: 'orphan', card_id: card.id });
    expect((await t.api('DELETE', `/v1/cards/${card.id}`)).status).toBe(204);
    const done = await t.api('POST', `/v1/todos/${x.id}/done`);
    expect(done.status).toBe(200);
    expect(done.body).not.toHaveProperty('card_id');
    expect(done.body).not.toHaveProperty('criterion_id');
  });
});

describe('due filters in the member time zone', () => {
  it('flips today, overdue and week at the member’s midnight, not UTC’s', async () => {
    // New York is UTC-5 in January: 04:30Z is 23:30 on the 15th there, 05:30Z is 00:30 on the 16th.
    const tok = (await memberWithToken(t, { name: 'Yann', role: 'member', tz: 'America/New_York' }, { name: 'yann', scopes: ['read', 'write'] })).token;
    const titles = new Map<string, string>();
    for (const due of ['2026-01-14', '2026-01-15', '2026-01-16', '2026-01-21', '2026-01-22']) {
      const x = await todo({ title: `due ${due}`, due_on: due }, tok);
      titles.set(x.id, due);
    }
    await todo({ title: 'no date' }, tok);
    const doneOverdue = await todo({ title: 'done late', due_on: '2026-01-10' }, tok);
    await t.api('POST', `/v1/todos/${doneOverdue.id}/done`, { token: tok });

    const dues = async (filter: string) => {
      const res = await t.api('GET', `/v1/todos?due=${filter}&limit=100`, { token: tok });
      expect(res.status).toBe(200);
      return res.body.data.map((x: { id: string }) => titles.get(x.id) ?? x.id).sort();
    };

    now = new Date('2026-01-16T04:30:00Z');
    expect(await dues('today')).toEqual(['2026-01-15']);
    expect(await dues('overdue')).toEqual(['2026-01-14']);
    expect(await dues('week')).toEqual(['2026-01-15', '2026-01-16', '2026-01-21']);

    now = new Date('2026-01-16T05:30:00Z');
    expect(await dues('today')).toEqual(['2026-01-16']);
    expect(await dues('overdue')).toEqual(['2026-01-14', '2026-01-15']);
    expect(await dues('week')).toEqual(['2026-01-16', '2026-01-21', '2026-01-22']);

    // The same instant for a member without a zone is read in UTC.
    now = new Date('2026-01-16T04:30:00Z');
    const utc = await todo({ title: 'utc today', due_on: '2026-01-16' });
    const ownerToday = await t.api('GET', '/v1/todos?due=today&limit=100');
    expect(ownerToday.body.data.map((x: { id: string }) => x.id)).toContain(utc.id);
  });
});
