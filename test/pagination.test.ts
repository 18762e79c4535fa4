import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, hashToken, tokenHint } from '../src/domain/token-format.js';
import { expectEnvelope } from './helpers/envelope.js';
import { memberWithToken } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
let orgId: string;
let ownerId: string;
beforeAll(async () => {
  t = await startTestServer();
  const me = await t.api('GET', '/v1/me');
  orgId = me.body.org.id;
  ownerId = me.body.member.id;
});
afterAll(async () => t?.close());

const q = (text: string, params?: unknown[]) => t.database!.query(text, params);
const rand = () => randomBytes(8).toString('hex');

/** A second organization with an owner and an owner token, straight in the database. */
async function newOrg(): Promise<{ orgId: string; memberId: string; token: string }> {
  const org = `org_${rand()}`;
  const member = `mem_${rand()}`;
  const token = generateToken();
  await q(`insert into organizations (id, slug, name) values ($1, $2, 'Other')`, [org, `other-${rand()}`]);
  await q(`insert into members (id, org_id, name, role) values ($1, $2, 'Other Owner', 'owner')`, [member, org]);
  await q(
    `insert into tokens (id, org_id, member_id, created_by, name, token_hash, hint, scopes) values ($1, $2, $3, $3, 'other', $4, $5, $6)`,
    [`tok_${rand()}`, org, member, hashToken(token), tokenHint(token), ['read', 'write', 'config:write']],
  );
  return { orgId: org, memberId: member, token };
}

/** Follows next_cursor to the end, calling `between` after each page; returns every id seen, in order. */
async function pageAll(path: string, limit: number, token: string, between?: (page: { id: string }[]) => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await t.api('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    ids.push(...res.body.data.map((r: { id: string }) => r.id));
    cursor = res.body.next_cursor;
    if (!cursor) return ids;
    expect(res.body.data).toHaveLength(limit);
    await between?.(res.body.data);
  }
  throw new Error('pagination did not end');
}

const ordered = async (table: 'members' | 'tokens', org: string) =>
  (await q(`select id from ${table} where org_id = $1 order by created_at desc, id desc`, [org])).map((r) => r.id as string);

describe('keyset pagination (contract §5)', () => {
  it('pages through rows with identical created_at, newest first, each exactly once', async () => {
    // One statement: every row gets the same now().
    await q(`insert into members (id, org_id, name, role) select 'mem_tie' || md5(g::text), $1, 'Tie ' || g, 'member' from generate_series(1, 30) g`, [orgId]);
    await q(
      `insert into tokens (id, org_id, member_id, created_by, name, token_hash, hint, scopes)
       select 'tok_tie' || md5(g::text), $1, $2, $2, 'tie ' || g, md5('tie' || g), 'tack_live_x…', '{read}' from generate_series(1, 30) g`,
      [orgId, ownerId],
    );
    const tied = await q(`select count(distinct created_at)::int as n from members where id like 'mem_tie%'`);
    expect(tied[0].n).toBe(1);
    for (const [table, path] of [['members', '/v1/members'], ['tokens', '/v1/tokens']] as const) {
      const expected = await ordered(table, orgId);
      expect(expected.length).toBeGreaterThan(30);
      for (const limit of [1, 7, 30]) {
        const seen = await pageAll(path, limit, t.token);
        expect(seen, `${path} limit ${limit}`).toEqual(expected);
      }
    }
  });

  it('neither repeats nor skips a row when others are inserted and deleted between pages', async () => {
    const other = await newOrg();
    // 40 members over 8 timestamps: ties everywhere.
    await q(
      `insert into members (id, org_id, name, role, created_at)
       select 'mem_' || md5(random()::text), $1, 'Churn ' || g, 'member', now() - (g % 8) * interval '1 minute' from generate_series(1, 40) g`,
      [other.orgId],
    );
    const initial = await ordered('members', other.orgId);
    const seenBeforeDelete = new Set<string>();
    const deletedUnseen = new Set<string>();
    const insertedBelow = new Set<string>();
    const insertedAbove = new Set<string>();
    let n = 0;
    const ids = await pageAll('/v1/members', 6, other.token, async (page) => {
      for (const r of page) seenBeforeDelete.add(r.id);
      const last = page[page.length - 1]!.id;
      n++;
      // Same timestamp as the cursor row: a lower id sorts after it (must show), a higher one before it (must not).
      const below = `mem_0000${n}`;
      const above = `mem_zzzz${n}`;
      await q(
        `insert into members (id, org_id, name, role, created_at)
         select v.id, $2, 'Inserted', 'member', m.created_at from members m, (values ($3), ($4)) v(id) where m.id = $1`,
        [last, other.orgId, below, above],
      );
      insertedBelow.add(below);
      insertedAbove.add(above);
      const fresh = `mem_${rand()}`;
      await q(`insert into members (id, org_id, name, role) values ($1, $2, 'Newest', 'member')`, [fresh, other.orgId]);
      insertedAbove.add(fresh);
      // Delete the cursor row itself and one row not seen yet.
      await q('delete from members where id = $1', [last]);
      const unseen = initial.find((id, i) => i > initial.indexOf(last) + 2 && !seenBeforeDelete.has(id) && !deletedUnseen.has(id));
      if (unseen) {
        await q('delete from members where id = $1', [unseen]);
        deletedUnseen.add(unseen);
      }
    });
    expect(n).toBeGreaterThan(3);
    expect(new Set(ids).size, 'no row repeated').toBe(ids.length);
    for (const id of initial) {
      if (deletedUnseen.has(id)) expect(ids, `deleted ${id} appears`).not.toContain(id);
      else expect(ids, `${id} existed throughout but was skipped`).toContain(id);
    }
    for (const id of insertedBelow) expect(ids, `${id} inserted ahead of the cursor was skipped`).toContain(id);
    for (const id of insertedAbove) expect(ids, `${id} inserted behind the cursor appeared`).not.toContain(id);
  });

  it('takes 25 by default, at most 100, and refuses 0 or 101 with 422', async () => {
    const total = (await ordered('members', orgId)).length;
    expect(total).toBeGreaterThan(25);
    const first = await t.api('GET', '/v1/members');
    expect(first.body.data).toHaveLength(25);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const max = await t.api('GET', '/v1/members?limit=100');
    expect(max.status).toBe(200);
    expect(max.body.data).toHaveLength(Math.min(100, total));
    for (const limit of ['101', '0', '-1', '2.5', 'ten']) {
      const res = await t.api('GET', `/v1/members?limit=${limit}`);
      expectEnvelope(res, 422, 'validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['limit']);
    }
    // A page that ends exactly at the last row says there is no more.
    const all = await t.api('GET', `/v1/members?limit=${total}`);
    expect(all.body.data).toHaveLength(total);
    expect(all.body.next_cursor).toBeUndefined();
  });

  it('refuses a cursor from another list, other filters or another organization with 400 invalid_cursor', async () => {
    const members = (await t.api('GET', '/v1/members?limit=2')).body.next_cursor as string;
    const tokens = (await t.api('GET', '/v1/tokens?limit=2')).body.next_cursor as string;
    expect(members && tokens).toBeTruthy();
    expectEnvelope(await t.api('GET', `/v1/members?cursor=${tokens}`), 400, 'invalid_cursor');
    expectEnvelope(await t.api('GET', `/v1/tokens?cursor=${members}`), 400, 'invalid_cursor');

    // listTokens filters by caller: a member sees only their own tokens, so the owner's cursor is not theirs.
    const mt = await memberWithToken(t, { name: 'Plain Member', role: 'member' }, { name: 'plain', scopes: ['read', 'write'] });
    expectEnvelope(await t.api('GET', `/v1/tokens?cursor=${tokens}`, { token: mt.token }), 400, 'invalid_cursor');

    const other = await newOrg();
    expectEnvelope(await t.api('GET', `/v1/members?cursor=${members}`, { token: other.token }), 400, 'invalid_cursor');
  });

  it('refuses garbage and edited cursors with 400 invalid_cursor', async () => {
    const real = (await t.api('GET', '/v1/members?limit=2')).body.next_cursor as string;
    const [key, id, bound] = JSON.parse(Buffer.from(real, 'base64url').toString('utf8')) as [string, string, string];
    const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const garbage = [
      'garbage',
      '!!!!',
      '%00',
      encodeURIComponent('😀'),
      encode([]),
      encode({ key, id }),
      encode([key, id]),
      encode([key, id, 'not-the-binding']),
      encode([key, 42, bound]),
      encode(['not a time', id, bound]),
      encode(['2026-13-45 99:99:99+00', id, bound]),
      // Shaped like a timestamp, but not one Postgres would take: still the cursor's fault, not a 422 or a 500.
      encode(['2026-02-30 10:00:00+00', id, bound]),
      encode(['0000-01-01 00:00:00+00', id, bound]),
      encode(['2026-01-01 00:00:00+16', id, bound]),
      encode(['2026-01-01T00:00:00Z', id, bound]),
      encode([1234, id, bound]),
      encode(['\u0000', id, bound]),
      encode([key, 'mem_\u0000', bound]),
      real.slice(0, -3),
    ];
    for (const c of garbage) {
      const res = await t.api('GET', `/v1/members?cursor=${c.startsWith('%') ? c : encodeURIComponent(c)}`);
      expectEnvelope(res, 400, 'invalid_cursor');
    }
    // The real one still works.
    expect((await t.api('GET', `/v1/members?cursor=${real}`)).status).toBe(200);
  });
});
