import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberWithToken } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

interface Listed {
  id: string;
  name: string;
  type: string;
  updated_at: string;
}

async function create(name: string, type: string, tags: string[], body = 'alpha bravo'): Promise<Listed> {
  const res = await t.api('POST', '/v1/snippets', { body: { type, name, body, tags } });
  expect(res.status).toBe(201);
  return res.body;
}

async function page(params: Record<string, string>) {
  const res = await t.api('GET', `/v1/snippets?${new URLSearchParams(params)}`);
  return res;
}

/** Every row of a filtered list, page by page; `between` runs after each page. */
async function walk(params: Record<string, string>, between?: (pageNo: number) => Promise<void>): Promise<Listed[]> {
  const all: Listed[] = [];
  let cursor: string | undefined;
  let n = 0;
  do {
    const res = await page({ ...params, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    cursor = res.body.next_cursor;
    if (cursor && between) await between(n++);
  } while (cursor);
  return all;
}

describe('listSnippets pagination', () => {
  it('defaults to 25, refuses limits over 100 or under 1 with 422', async () => {
    for (let i = 0; i < 27; i++) await create(`Bulk ${i}`, 'txt', ['bulk']);
    const first = await page({ tag: 'bulk' });
    expect(first.body.data).toHaveLength(25);
    expect(typeof first.body.next_cursor).toBe('string');
    const rest = await page({ tag: 'bulk', cursor: first.body.next_cursor });
    expect(rest.body.data).toHaveLength(2);
    expect(rest.body.next_cursor).toBeUndefined();
    expect('next_cursor' in rest.body).toBe(false);
    for (const limit of ['101', '0', '-1', 'x']) {
      const res = await page({ limit });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].field).toBe('limit');
    }
    expect((await page({ limit: '100' })).status).toBe(200);
  });

  it('orders by updated_at, newest first, and an edit brings a snippet to the top', async () => {
    const a = await create('Order A', 'txt', ['order']);
    const b = await create('Order B', 'txt', ['order']);
    const c = await create('Order C', 'txt', ['order']);
    expect((await walk({ tag: 'order' })).map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    await t.api('PATCH', `/v1/snippets/${a.id}`, { body: { name: 'Order A edited' } });
    const listed = await walk({ tag: 'order' });
    expect(listed.map((s) => s.id)).toEqual([a.id, c.id, b.id]);
    for (let i = 1; i < listed.length; i++) expect(Date.parse(listed[i - 1]!.updated_at)).toBeGreaterThanOrEqual(Date.parse(listed[i]!.updated_at));
  });

  it('walks filtered pages with no repeats or skips while rows are inserted and deleted between pages', async () => {
    const made: Listed[] = [];
    for (let i = 0; i < 24; i++) made.push(await create(`Walk ${i}`, i % 2 === 0 ? 'sql' : 'txt', ['walk'], i % 3 === 0 ? 'zulu alpha' : 'alpha'));
    const expected = made.filter((s) => s.type === 'sql').reverse();
    const deleted = new Set<string>();
    const inserted: string[] = [];
    const seen = await walk({ tag: 'walk', type: 'sql', limit: '4' }, async (n) => {
      // Newer rows (which belong before the cursor) and deletions of rows already seen and not yet seen.
      inserted.push((await create(`Walk new ${n}`, 'sql', ['walk'])).id);
      const victim = expected[expected.length - 1 - n];
      if (victim && !deleted.has(victim.id)) {
        deleted.add(victim.id);
        expect((await t.api('DELETE', `/v1/snippets/${victim.id}`)).status).toBe(204);
      }
      const already = expected[n];
      if (already && !deleted.has(already.id)) {
        deleted.add(already.id);
        await t.api('DELETE', `/v1/snippets/${already.id}`);
      }
    });
    const ids = seen.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.some((id) => inserted.includes(id))).toBe(false);
    // Everything that existed throughout is there, in order; what was deleted before its page came is not.
    const survivors = expected.filter((s) => !deleted.has(s.id)).map((s) => s.id);
    expect(ids.filter((id) => survivors.includes(id))).toEqual(survivors);
    for (const s of seen) expect(s.type).toBe('sql');
  });

  it('keeps the search filter across pages', async () => {
    for (let i = 0; i < 9; i++) await create(`Stack ${i}`, 'txt', ['stacks'], i % 3 === 0 ? 'needle in hay' : 'just hay');
    const found = await walk({ q: 'needle hay', tag: 'stacks', limit: '2' });
    expect(found.map((s) => s.name)).toEqual(['Stack 6', 'Stack 3', 'Stack 0']);
  });

  it('refuses a cursor reused with other filters, another list or garbage with 400 invalid_cursor', async () => {
    for (let i = 0; i < 3; i++) await create(`Cur ${i}`, 'sql', ['cur'], 'cursor words');
    const first = await page({ tag: 'cur', type: 'sql', q: 'cursor', limit: '1' });
    const cursor = first.body.next_cursor as string;
    expect(cursor).toBeTruthy();
    expect((await page({ tag: 'cur', type: 'sql', q: 'cursor', limit: '1', cursor })).status).toBe(200);
    // A different page size is the same list.
    expect((await page({ tag: 'cur', type: 'sql', q: 'cursor', limit: '2', cursor })).status).toBe(200);
    const variants: Record<string, string>[] = [
      { tag: 'cur', type: 'txt', q: 'cursor' },
      { tag: 'other', type: 'sql', q: 'cursor' },
      { tag: 'cur', type: 'sql', q: 'words' },
      { tag: 'cur', type: 'sql' },
      { type: 'sql', q: 'cursor' },
      {},
    ];
    for (const v of variants) {
      const res = await page({ ...v, cursor });
      expect(res.status, JSON.stringify(v)).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_cursor', http_status: 400 });
    }
    for (const bad of ['garbage', 'W10', Buffer.from('["x","y","z"]').toString('base64url'), cursor.slice(0, -2)]) {
      const res = await page({ tag: 'cur', type: 'sql', q: 'cursor', cursor: bad });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_cursor');
    }
    const tokens = await t.api('GET', '/v1/tokens?limit=1');
    if (tokens.body.next_cursor) expect((await page({ cursor: tokens.body.next_cursor })).status).toBe(400);
    // Another member's cursor for the same filters is not theirs to use (their visible set differs).
    const tok = await memberWithToken(t, { name: 'Cursor peer', role: 'member' }, { name: 'peer', scopes: ['read'] });
    const peer = await t.api('GET', `/v1/snippets?${new URLSearchParams({ tag: 'cur', type: 'sql', q: 'cursor', limit: '1', cursor })}`, { token: tok.token });
    expect(peer.status).toBe(400);
  });

  it('refuses invalid filters with 422', async () => {
    expect((await page({ type: 'exe' })).status).toBe(422);
    expect((await page({ tag: 'x'.repeat(51) })).status).toBe(422);
    expect((await page({ tag: 'a\u0000' })).status).toBe(422);
  });
});
