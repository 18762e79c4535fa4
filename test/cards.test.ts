import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecondOrg } from './helpers/second-org.js';
import { board as makeBoard, card as makeCard, member, memberWithToken, token as makeToken, type Fields } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
let ownerId: string;
/** A human member's token (role member) and an agent token of the owner. */
let memberToken: string;
let memberId: string;
let agentToken: string;

async function token(body: Partial<Fields<'/tokens'>>): Promise<string> {
  return (await makeToken(t, body)).token;
}

async function board(body: Fields<'/boards'>) {
  return makeBoard(t, body);
}

async function card(body: Fields<'/cards'>, as?: string) {
  return makeCard(t, body, { as });
}

beforeAll(async () => {
  t = await startTestServer();
  ownerId = (await t.api('GET', '/v1/me')).body.member.id;
  memberId = (await member(t, { name: 'Mia', role: 'member' })).id;
  memberToken = await token({ name: 'mia', member_id: memberId });
  agentToken = await token({ name: 'bot', agent: true });
});
afterAll(async () => t?.close());

describe('boards', () => {
  it('creates a board with slug, ref prefix and gate, deriving slug and prefix when omitted', async () => {
    const b = await board({ name: 'Platform Team' });
    expect(b).toMatchObject({ name: 'Platform Team', slug: 'platform-team', ref_prefix: 'PLA', gated: false });
    expect(b.id).toMatch(/^brd_/);
    const explicit = await board({ name: 'Design', slug: 'design', ref_prefix: 'DSN', gated: true });
    expect(explicit).toMatchObject({ slug: 'design', ref_prefix: 'DSN', gated: true });
    const list = await t.api('GET', '/v1/boards');
    expect(list.body.data.map((x: { id: string }) => x.id).slice(0, 2)).toEqual([explicit.id, b.id]);
  });

  it('refuses a slug or prefix already taken with 409 board_conflict, and bad ones with 422', async () => {
    await board({ name: 'Ops', slug: 'ops', ref_prefix: 'OPS' });
    const slug = await t.api('POST', '/v1/boards', { body: { name: 'Ops 2', slug: 'ops', ref_prefix: 'OPT' } });
    expect(slug.status).toBe(409);
    expect(slug.body.code).toBe('board_conflict');
    const prefix = await t.api('POST', '/v1/boards', { body: { name: 'Ops 3', slug: 'ops-3', ref_prefix: 'OPS' } });
    expect(prefix.status).toBe(409);
    const bad = await t.api('POST', '/v1/boards', { body: { name: 'X', slug: 'Not a slug!', ref_prefix: '1AB' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['ref_prefix', 'slug']);
  });

  it('needs config:write as owner or admin to create a board or change its gate', async () => {
    const b = await board({ name: 'Gate', slug: 'gate', ref_prefix: 'GAT' });
    const asMember = await t.api('PATCH', `/v1/boards/${b.id}`, { token: memberToken, body: { gated: true } });
    expect(asMember.status).toBe(403);
    expect(asMember.body.code).toBe('insufficient_scope');
    const withScope = await t.api('POST', '/v1/tokens', { body: { name: 'mia-cfg', scopes: ['read', 'write', 'config:write'], member_id: memberId } });
    const roleDenied = await t.api('PATCH', `/v1/boards/${b.id}`, { token: withScope.body.token, body: { gated: true } });
    expect(roleDenied.status).toBe(403);
    expect(roleDenied.body.code).toBe('forbidden_role');
    const created = await t.api('POST', '/v1/boards', { token: memberToken, body: { name: 'Nope' } });
    expect(created.status).toBe(403);
    const byOwner = await t.api('PATCH', '/v1/boards/gate', { body: { gated: true, name: 'Gated' } });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toMatchObject({ id: b.id, gated: true, name: 'Gated' });
  });
});

describe('cards', () => {
  let eng: { id: string; slug: string };
  let milestoneRef: string;

  beforeAll(async () => {
    eng = await board({ name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' });
    milestoneRef = (await t.api('POST', '/v1/milestones', { body: { ref: 'C1', name: 'Cards sprint' } })).body.ref;
  });

  it('numbers cards per board from 1 and derives criteria counts', async () => {
    const first = await card({ board: 'eng', title: 'First', criteria: ['write it', 'test it'], assignee_ids: [memberId, ownerId], milestone: milestoneRef, due_on: '2026-02-01' });
    expect(first).toMatchObject({
      ref: 'ENG-1',
      board_id: eng.id,
      title: 'First',
      workflow_status: 'backlog',
      gated: false,
      criteria_done: 0,
      criteria_total: 2,
      due_on: '2026-02-01',
      assignee_ids: [memberId, ownerId],
      milestone: 'C1',
    });
    const second = await card({ board: eng.id, title: 'Second' });
    expect(second).toMatchObject({ ref: 'ENG-2', criteria_total: 0, assignee_ids: [], milestone: null, due_on: null });
    const other = await board({ name: 'Web', slug: 'web', ref_prefix: 'WEB' });
    expect((await card({ board: other.id, title: 'Elsewhere' })).ref).toBe('WEB-1');

    const criteria = await t.api('GET', `/v1/cards/${first.id}/criteria`);
    expect(criteria.body.data.map((c: { title: string }) => c.title)).toEqual(['write it', 'test it']);
    const tick = await t.api('PATCH', `/v1/cards/ENG-1/criteria/${criteria.body.data[0].id}`, { body: { done: true } });
    expect(tick.status).toBe(200);
    expect(tick.body).toMatchObject({ done: true, todo_id: null, title: 'write it' });
    const added = await t.api('POST', '/v1/cards/ENG-1/criteria', { body: { title: 'ship it' } });
    expect(added.status).toBe(201);
    const got = await t.api('GET', '/v1/cards/eng-1');
    expect(got.body).toMatchObject({ id: first.id, criteria_done: 1, criteria_total: 3 });
  });

  it('never reuses a number, even after a delete', async () => {
    const b = await board({ name: 'Reuse', slug: 'reuse', ref_prefix: 'RE' });
    await card({ board: 'reuse', title: 'one' });
    const two = await card({ board: 'reuse', title: 'two' });
    expect((await t.api('DELETE', `/v1/cards/${two.id}`)).status).toBe(204);
    expect((await t.api('GET', `/v1/cards/${two.id}`)).body.code).toBe('card_not_found');
    expect((await t.api('GET', '/v1/cards/RE-2')).status).toBe(404);
    expect((await card({ board: b.id, title: 'three' })).ref).toBe('RE-3');
  });

  it('gives 20 concurrent createCard calls on one board refs 1 to 20', async () => {
    await board({ name: 'Race', slug: 'race', ref_prefix: 'RACE' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.api('POST', '/v1/cards', { body: { board: 'race', title: `race ${i}` } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = results.map((r) => Number(String(r.body.ref).split('-')[1])).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('refuses unknown references with 404 and bad input with 422, creating nothing', async () => {
    const before = (await t.api('GET', '/v1/cards?board=eng&limit=100')).body.data.length;
    expect((await t.api('POST', '/v1/cards', { body: { board: 'nope', title: 'x' } })).body.code).toBe('board_not_found');
    expect((await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'x', milestone: 'NOPE' } })).body.code).toBe('milestone_not_found');
    expect((await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'x', assignee_ids: ['mem_nobody'] } })).body.code).toBe('member_not_found');
    const bad = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: '', due_on: '2026-02-30' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['due_on', 'title']);
    expect((await t.api('GET', '/v1/cards?board=eng&limit=100')).body.data.length).toBe(before);
    // The failed creations gave their numbers back.
    expect((await card({ board: 'eng', title: 'after failures' })).ref).toMatch(/^ENG-\d+$/);
  });

  it('lists cards newest first, filtered by board, status and assignee, with cursors bound to filters', async () => {
    const b = await board({ name: 'Filter', slug: 'filter', ref_prefix: 'FIL' });
    const a = await card({ board: 'filter', title: 'a', assignee_ids: [memberId] });
    const c = await card({ board: 'filter', title: 'c' });
    const d = await card({ board: 'filter', title: 'd', assignee_ids: [ownerId, memberId] });
    await t.api('PATCH', `/v1/cards/${c.id}`, { body: { workflow_status: 'in_review' } });

    const all = await t.api('GET', `/v1/cards?board=${b.id}`);
    expect(all.body.data.map((x: { ref: string }) => x.ref)).toEqual(['FIL-3', 'FIL-2', 'FIL-1']);
    const review = await t.api('GET', '/v1/cards?board=filter&status=in_review');
    expect(review.body.data.map((x: { id: string }) => x.id)).toEqual([c.id]);
    const mine = await t.api('GET', '/v1/cards?board=filter&assignee=me', { token: memberToken });
    expect(mine.body.data.map((x: { id: string }) => x.id)).toEqual([d.id, a.id]);
    const owner = await t.api('GET', `/v1/cards?board=filter&assignee=${ownerId}`);
    expect(owner.body.data.map((x: { id: string }) => x.id)).toEqual([d.id]);

    const p1 = await t.api('GET', '/v1/cards?board=filter&limit=2');
    expect(p1.body.data).toHaveLength(2);
    const p2 = await t.api('GET', `/v1/cards?board=filter&limit=2&cursor=${p1.body.next_cursor}`);
    expect(p2.body.data.map((x: { id: string }) => x.id)).toEqual([a.id]);
    expect(p2.body.next_cursor).toBeUndefined();
    const reused = await t.api('GET', `/v1/cards?board=eng&limit=2&cursor=${p1.body.next_cursor}`);
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('invalid_cursor');
    expect((await t.api('GET', '/v1/cards?status=finished')).status).toBe(422);
    expect((await t.api('GET', '/v1/cards?limit=101')).status).toBe(422);
  });

  it('finds the board and milestone of a list in its own statement: 404s first, cursors bound to the ids', async () => {
    const b = await board({ name: 'Lookup', slug: 'lookup', ref_prefix: 'LKP' });
    await board({ name: 'Bare', slug: 'bare', ref_prefix: 'BAR' });
    expect((await t.api('POST', '/v1/milestones', { body: { ref: 'L1', name: 'Lookup one', kind: 'sprint' } })).status).toBe(201);
    const ids = [];
    for (const title of ['one', 'two', 'three']) ids.push((await card({ board: 'lookup', title, milestone: 'L1' })).id);
    const p1 = await t.api('GET', '/v1/cards?board=lookup&milestone=l1&limit=2');
    expect(p1.body.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1]]);
    // The cursor is bound to the board and milestone found, whichever way they were named.
    const p2 = await t.api('GET', `/v1/cards?board=${b.id}&milestone=L1&limit=2&cursor=${p1.body.next_cursor}`);
    expect(p2.status).toBe(200);
    expect(p2.body.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
    expect((await t.api('GET', `/v1/cards?board=bare&milestone=L1&limit=2&cursor=${p1.body.next_cursor}`)).body.code).toBe('invalid_cursor');
    expect((await t.api('GET', `/v1/cards?board=lookup&limit=2&cursor=${p1.body.next_cursor}`)).body.code).toBe('invalid_cursor');
    const empty = await t.api('GET', '/v1/cards?board=bare');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [] });

    const code = async (query: string) => {
      const res = await t.api('GET', `/v1/cards?${query}`);
      return `${res.status} ${res.body.code ?? ''}`.trim();
    };
    expect(await code('board=nowhere')).toBe('404 board_not_found');
    expect(await code('board=brd_nowhere')).toBe('404 board_not_found');
    expect(await code('milestone=M404')).toBe('404 milestone_not_found');
    expect(await code('board=lookup&milestone=M404')).toBe('404 milestone_not_found');
    // The board answers first, then the milestone, then the cursor: as when each had its own lookup.
    expect(await code('board=nowhere&milestone=M404')).toBe('404 board_not_found');
    expect(await code(`board=nowhere&cursor=${p1.body.next_cursor}`)).toBe('404 board_not_found');
    expect(await code('board=nowhere&cursor=not-a-cursor')).toBe('404 board_not_found');
    expect(await code('milestone=M404&cursor=not-a-cursor')).toBe('404 milestone_not_found');
    expect(await code('board=lookup&cursor=not-a-cursor')).toBe('400 invalid_cursor');
    const other = await t.api('GET', '/v1/cards?board=nowhere');
    expect(other.body.user_message).toBe('No board with the identifier "nowhere".');
  });

  it('lists each card as its last write answered it (the JSON Postgres keeps follows every write)', async () => {
    const odd = 'Quote " back \\ é 😀 \u2028 </script>\t';
    const b = await board({ name: 'Echo', slug: 'echo', ref_prefix: 'ECH' });
    expect((await t.api('POST', '/v1/milestones', { body: { ref: 'E1', name: 'Echo one', kind: 'sprint' } })).status).toBe(201);
    const listed = async (id: string) => {
      const res = await t.api('GET', '/v1/cards?board=echo&limit=100');
      return res.body.data.find((c: { id: string }) => c.id === id);
    };
    const created = await card({ board: 'echo', title: odd, due_on: '2026-05-06', milestone: 'E1', assignee_ids: [memberId, ownerId], criteria: ['a', 'b'] });
    expect(await listed(created.id)).toEqual(created);
    const writes: Record<string, unknown>[] = [
      { title: 'plain' },
      { workflow_status: 'in_review' },
      { due_on: null },
      { milestone: null, assignee_ids: [] },
      { title: odd, due_on: '2027-01-31', workflow_status: 'done', milestone: 'E1' },
    ];
    for (const body of writes) {
      const res = await t.api('PATCH', `/v1/cards/${created.id}`, { body });
      expect(res.status).toBe(200);
      expect(await listed(created.id)).toEqual(res.body);
    }
    expect((await t.api('PATCH', `/v1/boards/${b.id}`, { body: { gated: true } })).status).toBe(200);
    expect(await listed(created.id)).toEqual((await t.api('GET', `/v1/cards/${created.id}`)).body);
    expect((await listed(created.id)).gated).toBe(true);
  });

  it('changes title, due date, milestone and assignees with a move, and clears them with null', async () => {
    const c = await card({ board: 'eng', title: 'editable' });
    const moved = await t.api('PATCH', `/v1/cards/${c.ref}`, {
      body: { workflow_status: 'in_progress', title: 'edited', due_on: '2026-03-01', milestone: 'c1', assignee_ids: [memberId] },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ workflow_status: 'in_progress', title: 'edited', due_on: '2026-03-01', milestone: 'C1', assignee_ids: [memberId] });
    const cleared = await t.api('PATCH', `/v1/cards/${c.id}`, { body: { due_on: null, milestone: null, assignee_ids: [] } });
    expect(cleared.body).toMatchObject({ workflow_status: 'in_progress', due_on: null, milestone: null, assignee_ids: [] });
    const empty = await t.api('PATCH', `/v1/cards/${c.id}`, { body: {} });
    expect(empty.status).toBe(422);
  });

  it('keeps viewers from creating or moving cards', async () => {
    const vt = (await memberWithToken(t, { name: 'Vic', role: 'viewer' }, { name: 'vic' })).token;
    const c = await card({ board: 'eng', title: 'viewer target' });
    expect((await t.api('POST', '/v1/cards', { token: vt, body: { board: 'eng', title: 'x' } })).status).toBe(403);
    expect((await t.api('PATCH', `/v1/cards/${c.id}`, { token: vt, body: { workflow_status: 'done' } })).status).toBe(403);
    expect((await t.api('GET', `/v1/cards/${c.id}`, { token: vt })).status).toBe(200);
  });

  it("hides another organization's boards and cards as 404", async () => {
    const other = await createSecondOrg(t.server.db.db);
    const c = await card({ board: 'eng', title: 'private' });
    for (const path of [`/v1/cards/${c.id}`, `/v1/cards/${c.ref}`, `/v1/cards/${c.id}/criteria`]) {
      const res = await t.api('GET', path, { token: other.token });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('card_not_found');
    }
    expect((await t.api('PATCH', `/v1/cards/${c.id}`, { token: other.token, body: { title: 'hijack' } })).status).toBe(404);
    expect((await t.api('DELETE', `/v1/cards/${c.id}`, { token: other.token })).status).toBe(404);
    expect((await t.api('POST', '/v1/cards', { token: other.token, body: { board: 'eng', title: 'x' } })).body.code).toBe('board_not_found');
    expect((await t.api('GET', '/v1/cards', { token: other.token })).body.data).toEqual([]);
    expect((await t.api('GET', '/v1/boards', { token: other.token })).body.data).toEqual([]);
    expect((await t.api('GET', `/v1/cards/${c.id}`)).body.title).toBe('private');
  });
});

describe('the gate', () => {
  const STATES = ['backlog', 'in_progress', 'in_review', 'done'] as const;

  it("refuses an agent's move to done on a gated board whatever the card's state, changing nothing", async () => {
    await board({ name: 'Release', slug: 'release', ref_prefix: 'REL', gated: true });
    for (const state of STATES) {
      const c = await card({ board: 'release', title: `from ${state}`, due_on: '2026-05-01' });
      expect(c.gated).toBe(true);
      if (state !== 'backlog') {
        expect((await t.api('PATCH', `/v1/cards/${c.id}`, { body: { workflow_status: state } })).status).toBe(200);
      }
      const refused = await t.api('PATCH', `/v1/cards/${c.ref}`, {
        token: agentToken,
        body: { workflow_status: 'done', title: 'agent title', due_on: '2026-06-01' },
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'gated_move_requires_human', http_status: 403 });
      const after = await t.api('GET', `/v1/cards/${c.id}`);
      expect(after.body).toMatchObject({ workflow_status: state, title: `from ${state}`, due_on: '2026-05-01' });
    }
  });

  it("lets a human move to done on a gated board, and an agent make other moves there", async () => {
    const c = await card({ board: 'release', title: 'human' });
    const agentMove = await t.api('PATCH', `/v1/cards/${c.id}`, { token: agentToken, body: { workflow_status: 'in_review', title: 'by agent' } });
    expect(agentMove.status).toBe(200);
    expect(agentMove.body).toMatchObject({ workflow_status: 'in_review', title: 'by agent' });
    const human = await t.api('PATCH', `/v1/cards/${c.id}`, { token: memberToken, body: { workflow_status: 'done' } });
    expect(human.status).toBe(200);
    expect(human.body.workflow_status).toBe('done');
    const back = await t.api('PATCH', `/v1/cards/${c.id}`, { token: agentToken, body: { workflow_status: 'backlog' } });
    expect(back.body.workflow_status).toBe('backlog');
  });

  it('lets an agent move to done on an ungated board, any state to any state', async () => {
    await board({ name: 'Free', slug: 'free', ref_prefix: 'FREE' });
    const c = await card({ board: 'free', title: 'free' });
    for (const to of ['done', 'backlog', 'in_review', 'in_progress', 'done'] as const) {
      const res = await t.api('PATCH', `/v1/cards/${c.id}`, { token: agentToken, body: { workflow_status: to } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ workflow_status: to, gated: false });
    }
  });

  it('applies a gate switched on later to the next move', async () => {
    const b = await board({ name: 'Later', slug: 'later', ref_prefix: 'LAT' });
    const c = await card({ board: 'later', title: 'later' });
    await t.api('PATCH', `/v1/boards/${b.id}`, { body: { gated: true } });
    expect((await t.api('GET', `/v1/cards/${c.id}`)).body.gated).toBe(true);
    expect((await t.api('PATCH', `/v1/cards/${c.id}`, { token: agentToken, body: { workflow_status: 'done' } })).status).toBe(403);
  });
});
