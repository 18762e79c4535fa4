import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberWithToken, type Role, type Scope } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { createSecondOrg, type OtherOrg } from './helpers/second-org.js';

let t: TestServer;
let other: OtherOrg;
beforeAll(async () => {
  t = await startTestServer();
  other = await createSecondOrg(t.server.db.db);
});
afterAll(async () => t?.close());

const create = (body: Record<string, unknown>, options: { token?: string; headers?: Record<string, string> } = {}) =>
  t.api('POST', '/v1/snippets', { body, ...options });

/** A member of the default organization with a token of the given scopes. */
async function memberToken(role: Role, scopes: Scope[]): Promise<{ id: string; token: string }> {
  return memberWithToken(t, { name: `M ${role} ${Math.random()}`, role }, { name: 'm', scopes });
}

/** Opens a public link on the test server (its PORT is 0, so the configured base names port 0). */
const openLink = (publicUrl: string) => fetch(`${t.url}${new URL(publicUrl).pathname}`);

async function snippetCount(): Promise<number> {
  const row = await t.server.db.db.selectFrom('snippets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('createSnippet and getSnippet', () => {
  it('creates version 1 with a slug, defaults and a public link', async () => {
    const res = await create({ type: 'sql', name: 'Active users', body: 'select * from users where active' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      org_id: expect.stringMatching(/^org_/),
      type: 'sql',
      name: 'Active users',
      slug: 'active-users',
      category: null,
      tags: [],
      visibility: 'team',
      version: 1,
      body: 'select * from users where active',
    });
    expect(res.body.id).toMatch(/^snp_/);
    expect(res.body.public_url).toMatch(new RegExp(`^${t.url.replace(/[.]/g, "\\.")}\\/p\\/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
    expect(res.body.updated_at).toBe(res.body.created_at);

    const got = await t.api('GET', `/v1/snippets/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const bySlug = await t.api('GET', '/v1/snippets/active-users');
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.id).toBe(res.body.id);
  });

  it('keeps category, de-duplicated tags and private visibility', async () => {
    const res = await create({
      type: 'json',
      name: '  Config  ',
      body: '{"a":1}',
      category: 'ops/deploy',
      tags: ['prod', 'infra', 'prod'],
      visibility: 'private',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Config', category: 'ops/deploy', tags: ['prod', 'infra'], visibility: 'private' });
  });

  it('derives slugs from names and numbers clashes -2, -3', async () => {
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push((await create({ type: 'txt', name: 'Deploy Steps!', body: 'x' })).body.slug);
    expect(slugs).toEqual(['deploy-steps', 'deploy-steps-2', 'deploy-steps-3']);
    expect((await create({ type: 'txt', name: 'Crème brûlée', body: 'x' })).body.slug).toBe('creme-brulee');
    expect((await create({ type: 'txt', name: '日本語', body: 'x' })).body.slug).toBe('snippet');
    expect((await create({ type: 'txt', name: '🎉', body: 'x' })).body.slug).toBe('snippet-2');
    // A name that looks like a numbered slug takes its own place in the same series.
    expect((await create({ type: 'txt', name: 'Deploy steps 4', body: 'x' })).body.slug).toBe('deploy-steps-4');
    expect((await create({ type: 'txt', name: 'deploy steps', body: 'x' })).body.slug).toBe('deploy-steps-5');
    const long = await create({ type: 'txt', name: 'a'.repeat(200), body: 'x' });
    expect(long.body.slug.length).toBeLessThanOrEqual(64);
  });

  it('gives concurrent creations distinct slugs', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => create({ type: 'txt', name: 'Race', body: 'r' })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const slugs = results.map((r) => r.body.slug).sort();
    const expected = ['race', ...Array.from({ length: 11 }, (_, i) => `race-${i + 2}`)].sort();
    expect(slugs).toEqual(expected);
  });

  it('gives creations and renames to the same name at once distinct slugs', async () => {
    const olds = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ type: 'txt', name: `Old name ${i}`, body: 'o' })));
    const results = await Promise.all([
      ...olds.map((o) => t.api('PATCH', `/v1/snippets/${o.body.id}`, { body: { name: 'Crowded' } })),
      ...Array.from({ length: 6 }, () => create({ type: 'txt', name: 'Crowded', body: 'c' })),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([...Array(6).fill(200), ...Array(6).fill(201)]);
    const expected = ['crowded', ...Array.from({ length: 11 }, (_, i) => `crowded-${i + 2}`)].sort();
    expect(results.map((r) => r.body.slug).sort()).toEqual(expected);
  });

  it('uses slugs per organization', async () => {
    const mine = await create({ type: 'txt', name: 'Shared name', body: 'a' });
    const theirs = await create({ type: 'txt', name: 'Shared name', body: 'b' }, { token: other.token });
    expect(theirs.status).toBe(201);
    expect(mine.body.slug).toBe('shared-name');
    expect(theirs.body.slug).toBe('shared-name');
    expect(theirs.body.org_id).toBe(other.orgId);
    expect((await t.api('GET', '/v1/snippets/shared-name')).body.id).toBe(mine.body.id);
    expect((await t.api('GET', '/v1/snippets/shared-name', { token: other.token })).body.id).toBe(theirs.body.id);
  });
});

describe('validation and limits', () => {
  const valid = { type: 'txt', name: 'Valid', body: 'text' };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['missing type', { name: 'x', body: 'y' }, 'type'],
    ['unknown type', { ...valid, type: 'exe' }, 'type'],
    ['missing name', { type: 'txt', body: 'y' }, 'name'],
    ['blank name', { ...valid, name: '   ' }, 'name'],
    ['name too long', { ...valid, name: 'n'.repeat(201) }, 'name'],
    ['control character in name', { ...valid, name: 'a\u0007b' }, 'name'],
    ['missing body', { type: 'txt', name: 'x' }, 'body'],
    ['empty body', { ...valid, body: '' }, 'body'],
    ['NUL in body', { ...valid, body: 'a\u0000b' }, 'body'],
    ['body not a string', { ...valid, body: 42 }, 'body'],
    ['21 tags', { ...valid, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
    ['tag too long', { ...valid, tags: ['x'.repeat(51)] }, 'tags.0'],
    ['empty tag', { ...valid, tags: ['ok', ''] }, 'tags.1'],
    ['category too long', { ...valid, category: 'c'.repeat(201) }, 'category'],
    ['unknown visibility', { ...valid, visibility: 'public' }, 'visibility'],
  ];
  it.each(cases)('refuses %s with 422 and a field error, storing nothing', async (_, body, field) => {
    const before = await snippetCount();
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_failed', http_status: 422 });
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    for (const e of res.body.errors) expect(e).toEqual({ field: expect.any(String), code: expect.any(String), message: expect.any(String) });
    expect(await snippetCount()).toBe(before);
  });

  it('takes exactly 1 MiB of UTF-8 and answers 413 payload_too_large beyond', async () => {
    const fits = await create({ ...valid, body: 'é'.repeat(512 * 1024) });
    expect(fits.status).toBe(201);
    expect(fits.body.body.length).toBe(512 * 1024);
    const before = await snippetCount();
    const over = await create({ ...valid, body: 'é'.repeat(512 * 1024) + 'x' });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ code: 'payload_too_large', http_status: 413, request_id: over.headers.get('x-request-id') });
    const big = await t.api('PATCH', `/v1/snippets/${fits.body.id}`, { body: { body: 'x'.repeat(1024 * 1024 + 1) } });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    expect(await snippetCount()).toBe(before);
    expect((await t.api('GET', `/v1/snippets/${fits.body.id}`)).body.version).toBe(1);
  });

  it('answers 413 in the envelope for a request body beyond the server limit', async () => {
    const res = await t.api('POST', '/v1/snippets', { raw: JSON.stringify({ ...valid, body: 'x'.repeat(5 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });
});

describe('errors and permissions', () => {
  it('answers 404 snippet_not_found for unknown ids and slugs on every operation', async () => {
    for (const ref of ['snp_doesnotexist000', 'no-such-slug']) {
      for (const [method, path, body] of [
        ['GET', `/v1/snippets/${ref}`],
        ['PATCH', `/v1/snippets/${ref}`, { name: 'x' }],
        ['DELETE', `/v1/snippets/${ref}`],
        ['POST', `/v1/snippets/${ref}/link`],
        ['GET', `/v1/snippets/${ref}/versions`],
        ['GET', `/v1/snippets/${ref}/versions/1`],
      ] as const) {
        const res = await t.api(method, path, body ? { body } : {});
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toMatchObject({ code: 'snippet_not_found', http_status: 404 });
      }
    }
  });

  it('refuses writes with a read-only token (403) but lets it read', async () => {
    const s = await create({ type: 'txt', name: 'Guarded', body: 'g' });
    const ro = await t.api('POST', '/v1/tokens', { body: { name: 'ro', scopes: ['read'] } });
    const token = ro.body.token as string;
    const attempts = [
      await create({ type: 'txt', name: 'Nope', body: 'n' }, { token }),
      await t.api('PATCH', `/v1/snippets/${s.body.id}`, { token, body: { body: 'changed' } }),
      await t.api('DELETE', `/v1/snippets/${s.body.id}`, { token }),
      await t.api('POST', `/v1/snippets/${s.body.id}/link`, { token }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    }
    const got = await t.api('GET', `/v1/snippets/${s.body.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ body: 'g', version: 1, public_url: s.body.public_url });
    expect((await t.api('GET', '/v1/snippets?limit=100', { token })).body.data.some((x: { name: string }) => x.name === 'Nope')).toBe(false);
  });

  it('keeps viewers read-only', async () => {
    const viewer = await memberToken('viewer', ['read', 'write']);
    const res = await create({ type: 'txt', name: 'By viewer', body: 'v' }, { token: viewer.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden_role');
  });

  it('answers 401 without a token', async () => {
    const res = await t.api('GET', '/v1/snippets', { token: null });
    expect(res.status).toBe(401);
  });
});

describe('idempotent create', () => {
  it('replays the first response for the same key and body, once stored', async () => {
    const before = await snippetCount();
    const headers = { 'idempotency-key': 'create-snippet-1' };
    const body = { type: 'txt', name: 'Once only', body: 'hello', tags: ['a'] };
    const first = await create(body, { headers });
    const second = await create(body, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.text).toBe(first.text);
    expect(await snippetCount()).toBe(before + 1);
    const reused = await create({ ...body, body: 'other' }, { headers });
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(await snippetCount()).toBe(before + 1);
  });

  it('stores nothing for a create that failed validation', async () => {
    const headers = { 'idempotency-key': 'create-snippet-bad' };
    const bad = await create({ type: 'txt', name: '', body: 'x' }, { headers });
    expect(bad.status).toBe(422);
    const good = await create({ type: 'txt', name: 'Fixed', body: 'x' }, { headers });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('settles concurrent duplicates to one snippet', async () => {
    const before = await snippetCount();
    const headers = { 'idempotency-key': 'create-snippet-race' };
    const body = { type: 'txt', name: 'Raced once', body: 'r' };
    const results = await Promise.all(Array.from({ length: 6 }, () => create(body, { headers })));
    const ok = results.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
    expect(await snippetCount()).toBe(before + 1);
  });
});

describe('updateSnippet and versions', () => {
  it('bumps the version only for a new body and keeps old versions readable', async () => {
    const s = (await create({ type: 'sql', name: 'Report', body: 'select 1', category: 'reports', tags: ['x'] })).body;
    const meta = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { tags: ['x', 'y'], category: 'reports/daily' } });
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({ version: 1, tags: ['x', 'y'], category: 'reports/daily', body: 'select 1' });
    expect(Date.parse(meta.body.updated_at)).toBeGreaterThan(Date.parse(s.updated_at));
    expect(meta.body.created_at).toBe(s.created_at);

    const v2 = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: 'select 2' } });
    expect(v2.body).toMatchObject({ version: 2, body: 'select 2', public_url: s.public_url });
    const same = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: 'select 2' } });
    expect(same.body.version).toBe(2);
    expect(same.body.updated_at).toBe(v2.body.updated_at);
    const v3 = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: 'select 3', name: 'Daily report' } });
    expect(v3.body).toMatchObject({ version: 3, name: 'Daily report', slug: 'daily-report' });

    const list = await t.api('GET', `/v1/snippets/${s.id}/versions`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(list.body.data.map((v: { body: string }) => v.body)).toEqual(['select 3', 'select 2', 'select 1']);
    expect(list.body.next_cursor).toBeUndefined();

    const one = await t.api('GET', `/v1/snippets/${s.id}/versions/1`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ snippet_id: s.id, version: 1, type: 'sql', body: 'select 1', name: 'Report', category: 'reports/daily', tags: ['x', 'y'] });
    const current = await t.api('GET', `/v1/snippets/${s.id}/versions/3`);
    expect(current.body).toMatchObject({ body: 'select 3', name: 'Daily report' });
    const missing = await t.api('GET', `/v1/snippets/${s.id}/versions/4`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('snippet_version_not_found');
    for (const n of ['0', '-1', 'abc', '1.5']) {
      expect((await t.api('GET', `/v1/snippets/${s.id}/versions/${n}`)).status).toBe(422);
    }
    expect((await t.api('GET', '/v1/snippets/daily-report/versions/2')).body.body).toBe('select 2');
  });

  it('pages through versions newest first', async () => {
    const s = (await create({ type: 'txt', name: 'Many versions', body: 'v1' })).body;
    for (let i = 2; i <= 7; i++) await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: `v${i}` } });
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.api('GET', `/v1/snippets/${s.id}/versions?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((v: { version: number }) => v.version));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const other = (await create({ type: 'txt', name: 'Other versions', body: 'o' })).body;
    const page = await t.api('GET', `/v1/snippets/${s.id}/versions?limit=2`);
    const wrong = await t.api('GET', `/v1/snippets/${other.id}/versions?cursor=${page.body.next_cursor}`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('invalid_cursor');
  });

  it('clears category with null, renames slugs only when the name says so, and validates', async () => {
    const s = (await create({ type: 'txt', name: 'Rename me', body: 'r', category: 'c' })).body;
    await create({ type: 'txt', name: 'Taken', body: 't' });
    const cleared = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { category: null } });
    expect(cleared.body.category).toBeNull();
    const recased = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { name: 'RENAME ME' } });
    expect(recased.body).toMatchObject({ name: 'RENAME ME', slug: 'rename-me' });
    const renamed = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { name: 'Taken' } });
    expect(renamed.body).toMatchObject({ name: 'Taken', slug: 'taken-2' });
    expect((await t.api('GET', '/v1/snippets/rename-me')).status).toBe(404);
    const bad = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { name: '', tags: ['ok', 'x'.repeat(51)] } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['name', 'tags.1']);
    // An empty PATCH changes nothing and says so, as on every resource.
    const empty = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual([{ field: 'body', code: 'empty', message: expect.stringContaining('Give at least one field to change') }]);
    expect((await t.api('GET', `/v1/snippets/${s.id}`)).body.updated_at).toBe(renamed.body.updated_at);
  });

  it('reads show what every write answered (the JSON Postgres keeps beside the row follows each write)', async () => {
    const odd = 'Quote " back \\ é 😀 \u2028 </script>';
    const s = await create({ type: 'html', name: odd, body: `<p>${odd}\t\u0001</p>`, category: odd, tags: [odd] });
    expect(s.status).toBe(201);
    /** The snippet as `getSnippet` and as `listSnippets` show it, each against what the write answered. */
    const expectReadsToShow = async (answered: Record<string, unknown>) => {
      const got = await t.api('GET', `/v1/snippets/${s.body.id}`);
      expect(got.body).toEqual(answered);
      const listed = await t.api('GET', '/v1/snippets?limit=100');
      expect(listed.body.data.find((x: { id: string }) => x.id === s.body.id)).toEqual(answered);
    };
    await expectReadsToShow(s.body);
    for (const change of [{ name: 'Plain' }, { tags: ['a', 'b'] }, { category: null }, { visibility: 'private' }, { body: 'v2 "body"' }]) {
      const updated = await t.api('PATCH', `/v1/snippets/${s.body.id}`, { body: change });
      expect(updated.status).toBe(200);
      await expectReadsToShow(updated.body);
    }
    const rotated = await t.api('POST', `/v1/snippets/${s.body.id}/link`);
    const current = (await t.api('PATCH', `/v1/snippets/${s.body.id}`, { body: { name: 'After rotation' } })).body;
    expect(current.public_url).toBe(rotated.body.public_url);
    await expectReadsToShow(current);
  });

  it('replays an idempotent update', async () => {
    const s = (await create({ type: 'txt', name: 'Upd idem', body: 'a' })).body;
    const headers = { 'idempotency-key': 'upd-1' };
    const first = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: 'b' }, headers });
    const again = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: 'b' }, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(first.body.version).toBe(2);
  });
});

describe('visibility', () => {
  it('shows a private snippet to its creator only', async () => {
    const alice = await memberToken('member', ['read', 'write']);
    const bob = await memberToken('member', ['read', 'write']);
    const secret = await create({ type: 'txt', name: 'Alice secret', body: 's', visibility: 'private' }, { token: alice.token });
    const team = await create({ type: 'txt', name: 'Alice team', body: 't' }, { token: alice.token });
    expect(secret.status).toBe(201);
    expect((await t.api('GET', `/v1/snippets/${secret.body.id}`, { token: alice.token })).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', `/v1/snippets/${secret.body.id}`],
      ['GET', `/v1/snippets/${secret.body.slug}`],
      ['PATCH', `/v1/snippets/${secret.body.id}`, { body: 'stolen' }],
      ['POST', `/v1/snippets/${secret.body.id}/link`],
      ['GET', `/v1/snippets/${secret.body.id}/versions`],
      ['GET', `/v1/snippets/${secret.body.id}/versions/1`],
      ['DELETE', `/v1/snippets/${secret.body.id}`],
    ] as const) {
      for (const token of [bob.token, t.token]) {
        const res = await t.api(method, path, { token, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.code).toBe('snippet_not_found');
      }
    }
    const names = async (token: string) =>
      (await t.api('GET', '/v1/snippets?limit=100', { token })).body.data.map((s: { name: string }) => s.name);
    expect(await names(alice.token)).toEqual(expect.arrayContaining(['Alice secret', 'Alice team']));
    expect(await names(bob.token)).toContain('Alice team');
    expect(await names(bob.token)).not.toContain('Alice secret');
    // The slug of a private snippet is still taken for everyone in the organization.
    const clash = await create({ type: 'txt', name: 'Alice secret', body: 'b' }, { token: bob.token });
    expect(clash.body.slug).toBe('alice-secret-2');

    const hide = await t.api('PATCH', `/v1/snippets/${team.body.id}`, { token: bob.token, body: { visibility: 'private' } });
    expect(hide.status).toBe(403);
    expect(hide.body.code).toBe('not_snippet_creator');
    const edit = await t.api('PATCH', `/v1/snippets/${team.body.id}`, { token: bob.token, body: { body: 'edited by bob' } });
    expect(edit.body.version).toBe(2);
    const own = await t.api('PATCH', `/v1/snippets/${team.body.id}`, { token: alice.token, body: { visibility: 'private' } });
    expect(own.body.visibility).toBe('private');
    expect((await t.api('GET', `/v1/snippets/${team.body.id}`, { token: bob.token })).status).toBe(404);
  });
});

describe('organization isolation', () => {
  it("answers 404 for another organization's snippet and never lists it", async () => {
    const theirs = (await create({ type: 'html', name: 'Their page', body: '<p>theirs</p>', tags: ['iso'] }, { token: other.token })).body;
    const mine = (await create({ type: 'txt', name: 'My iso', body: 'mine', tags: ['iso'] })).body;
    for (const [method, path, body] of [
      ['GET', `/v1/snippets/${theirs.id}`],
      ['GET', `/v1/snippets/${theirs.slug}`],
      ['PATCH', `/v1/snippets/${theirs.id}`, { body: 'x' }],
      ['POST', `/v1/snippets/${theirs.id}/link`],
      ['GET', `/v1/snippets/${theirs.id}/versions`],
      ['GET', `/v1/snippets/${theirs.id}/versions/1`],
      ['DELETE', `/v1/snippets/${theirs.id}`],
    ] as const) {
      const res = await t.api(method, path, body ? { body } : {});
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe('snippet_not_found');
    }
    const listed = await t.api('GET', '/v1/snippets?tag=iso');
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([mine.id]);
    const theirList = await t.api('GET', '/v1/snippets?tag=iso', { token: other.token });
    expect(theirList.body.data.map((s: { id: string }) => s.id)).toEqual([theirs.id]);
    expect((await t.api('GET', `/v1/snippets/${theirs.id}`, { token: other.token })).body.body).toBe('<p>theirs</p>');
    // Their public link still works for anyone: it is the capability.
    expect((await openLink(theirs.public_url)).status).toBe(200);
  });
});

describe('deleteSnippet', () => {
  it('removes the snippet, its versions and its link at once', async () => {
    const s = (await create({ type: 'txt', name: 'Doomed', body: 'v1' })).body;
    await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: 'v2' } });
    expect((await openLink(s.public_url)).status).toBe(200);
    const del = await t.api('DELETE', `/v1/snippets/${s.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    for (const path of [`/v1/snippets/${s.id}`, `/v1/snippets/${s.id}/versions`, `/v1/snippets/${s.id}/versions/1`, '/v1/snippets/doomed']) {
      const res = await t.api('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('snippet_not_found');
    }
    expect((await openLink(s.public_url)).status).toBe(404);
    const again = await t.api('DELETE', `/v1/snippets/${s.id}`);
    expect(again.status).toBe(404);
    const { rows } = await import('pg').then(async ({ default: pg }) => {
      const c = new pg.Client({ connectionString: t.database!.url });
      await c.connect();
      try {
        return await c.query('select (select count(*) from snippet_versions where snippet_id = $1) + (select count(*) from snippet_links where snippet_id = $1) as n', [s.id]);
      } finally {
        await c.end();
      }
    });
    expect(Number(rows[0].n)).toBe(0);
    // The slug is free again.
    expect((await create({ type: 'txt', name: 'Doomed', body: 'again' })).body.slug).toBe('doomed');
  });
});
