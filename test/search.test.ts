import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecondOrg, type OtherOrg } from './helpers/second-org.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** `search` (contract §13): every word, the last as a prefix, refs first, only what the caller may see. */

let t: TestServer;
let other: OtherOrg;
let noraToken: string;
const made: Record<string, string> = {};

async function post(path: string, body: Record<string, unknown>, token?: string): Promise<{ id: string; ref?: string }> {
  const res = await t.api('POST', path, { body, ...(token ? { token } : {}) });
  expect(res.status, `${path} ${res.text}`).toBe(201);
  return res.body;
}

beforeAll(async () => {
  t = await startTestServer();
  other = await createSecondOrg(t.server.db.db);
  await post('/v1/boards', { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' });
  // ENG-1 … ENG-42: the 42nd is the one a ref search names; others mention 42 in their titles.
  for (let i = 1; i <= 42; i++) {
    const title = i === 42 ? 'Sign-up form validates e-mail' : i === 4 ? 'Overdue cards turn red' : i === 5 ? 'Look at ENG-42 again' : `Routine chore ${i}`;
    const card = await post('/v1/cards', { board: 'eng', title });
    if (i === 42) made.eng42 = card.id;
    if (i === 4) made.overdueCard = card.id;
    if (i === 5) made.mentions42 = card.id;
  }
  made.snippet = (await post('/v1/snippets', { type: 'txt', name: 'Runbook', body: 'When cards are overdue, page the lead.' })).id;
  made.milestone = (await post('/v1/milestones', { ref: 'M3', name: 'Overdue sweep', kind: 'sprint', ends_on: '2030-01-31' })).id;
  made.myTodo = (await post('/v1/todos', { title: 'Chase overdue invoices' })).id;
  const nora = await t.api('POST', '/v1/members', { body: { name: 'Nora', role: 'member' } });
  noraToken = (await t.api('POST', '/v1/tokens', { body: { name: 'nora', scopes: ['read', 'write'], member_id: nora.body.id } })).body.token;
  made.noraTodo = (await post('/v1/todos', { title: 'Overdue dentist appointment' }, noraToken)).id;
  made.noraPrivate = (await post('/v1/snippets', { type: 'txt', name: 'Overdue notes', body: 'mine', visibility: 'private' }, noraToken)).id;
  await post('/v1/boards', { name: 'Overdue things', slug: 'od', ref_prefix: 'OD' }, other.token);
  await post('/v1/todos', { title: 'Overdue in the other org' }, other.token);
}, 60_000);
afterAll(async () => t?.close());

interface Hit {
  type: string;
  id: string;
  ref: string | null;
  title: string;
  excerpt: string;
  updated_at: string;
}

async function search(params: Record<string, string>, token?: string): Promise<Hit[]> {
  const res = await t.api('GET', `/v1/search?${new URLSearchParams(params)}`, token ? { token } : {});
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('search', () => {
  it('finds things while the last word is being typed, across types', async () => {
    const hits = await search({ q: 'overd' });
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set([made.overdueCard, made.snippet, made.milestone, made.myTodo]));
    const card = hits.find((h) => h.id === made.overdueCard)!;
    expect(card).toEqual({ type: 'card', id: made.overdueCard, ref: 'ENG-4', title: 'Overdue cards turn red', excerpt: 'Engineering · backlog', updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(hits.find((h) => h.type === 'snippet')!.excerpt).toContain('overdue');
    // Things whose title holds the words come before a body that does.
    expect(hits[hits.length - 1]!.type).toBe('snippet');
  });

  it('needs every word, only the last as a prefix', async () => {
    expect((await search({ q: 'overdue car' })).map((h) => h.id)).toEqual([made.overdueCard, made.snippet]);
    expect((await search({ q: 'overd cards' })).map((h) => h.id)).toEqual([]);
    expect((await search({ q: 'overdue xyz' })).map((h) => h.id)).toEqual([]);
    expect((await search({ q: 'sign-u' })).map((h) => h.id)).toEqual([made.eng42]);
  });

  it('puts an exact ref first, however it is cased', async () => {
    const hits = await search({ q: 'eng-42' });
    expect(hits[0]).toMatchObject({ type: 'card', id: made.eng42, ref: 'ENG-42', title: 'Sign-up form validates e-mail' });
    expect(hits.map((h) => h.id)).toContain(made.mentions42);
    expect((await search({ q: 'm3' }))[0]).toMatchObject({ type: 'milestone', ref: 'M3' });
    expect((await search({ q: 'eng' }))[0]).toMatchObject({ type: 'board', ref: 'eng', title: 'Engineering' });
  });

  it('filters by types and limits', async () => {
    expect((await search({ q: 'overd', types: 'todo,milestone' })).map((h) => h.type).sort()).toEqual(['milestone', 'todo']);
    expect(await search({ q: 'routine', limit: '3' })).toHaveLength(3);
    expect(await search({ q: 'routine' })).toHaveLength(20);
    expect(await search({ q: 'routine', limit: '50' })).toHaveLength(39);
  });

  it("never shows another member's personal todo or private snippet, nor another organization's things", async () => {
    const mine = (await search({ q: 'overdue' })).map((h) => h.id);
    expect(mine).not.toContain(made.noraTodo);
    expect(mine).not.toContain(made.noraPrivate);
    const nora = (await search({ q: 'overdue' }, noraToken)).map((h) => h.id);
    expect(nora).toContain(made.noraTodo);
    expect(nora).toContain(made.noraPrivate);
    expect(nora).not.toContain(made.myTodo);
    const theirs = await search({ q: 'overdue' }, other.token);
    expect(theirs.map((h) => h.title).sort()).toEqual(['Overdue in the other org', 'Overdue things']);
  });

  it('refuses an empty q, a missing one, unknown types and a limit past 50 (422)', async () => {
    for (const query of ['q=', 'q=%20%20', '', 'q=a&types=card,people', 'q=a&limit=51', 'q=a&limit=0']) {
      const res = await t.api('GET', `/v1/search?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.code, query).toBe('validation_failed');
    }
    const res = await t.api('GET', '/v1/search?q=');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'q' })]);
  });

  it('answers 200 for any text a person might type', async () => {
    for (const q of ["'", '"unclosed', 'a & b | !c', 'foo:*', '-', 'or', '\\', '🎉', 'ab '.repeat(300), "it's o"]) {
      const res = await t.api('GET', `/v1/search?${new URLSearchParams({ q })}`);
      expect(res.status, q).toBe(200);
    }
  });
});
