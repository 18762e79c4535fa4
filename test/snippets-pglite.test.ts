import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { createSecondOrg } from './helpers/second-org.js';

/** The embedded default (PGlite, Postgres 17): the snippet SQL must run there too. */
let t: TestServer;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tack-pglite-snippets-'));
  t = await startTestServer({ DATA_DIR: dir, DATABASE_URL: '' });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (publicUrl: string) => fetch(`${t.url}${new URL(publicUrl).pathname}`);

describe('snippets on PGlite', () => {
  it('runs the whole life cycle', async () => {
    expect(t.server.db.kind).toBe('pglite');
    const tags = ['a,b', '{braces}', 'quote"s', 'back\\slash', 'NULL', 'ünï'];
    const created = await Promise.all(
      Array.from({ length: 4 }, () => t.api('POST', '/v1/snippets', { body: { type: 'sql', name: 'Lite', body: 'select 1', tags } })),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(created.map((r) => r.body.slug).sort()).toEqual(['lite', 'lite-2', 'lite-3', 'lite-4']);
    const s = created[0]!.body;
    expect(s.tags).toEqual(tags);
    expect((await t.api('GET', `/v1/snippets?${new URLSearchParams({ tag: 'quote"s' })}`)).body.data).toHaveLength(4);

    const v2 = await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: 'select 2 as canary' } });
    expect(v2.body.version).toBe(2);
    expect((await t.api('GET', `/v1/snippets/${s.id}/versions/1`)).body.body).toBe('select 1');
    expect((await t.api('GET', `/v1/snippets/${s.id}/versions`)).body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);

    // Any text a q may be, up to its 1,000 characters: the most words, phrases, alternatives and exclusions.
    for (const q of ['canary', '"unclosed', "' or 1=1 --", 'a\u0000b', '🎉', 'x'.repeat(1_000), 'ab '.repeat(333), '"a b" '.repeat(166), 'a or '.repeat(200), '-a '.repeat(333)]) {
      const res = await t.api('GET', `/v1/snippets?${new URLSearchParams({ q })}`);
      expect(res.status).toBe(200);
      if (q === 'canary') expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([s.id]);
    }

    const first = await t.api('GET', '/v1/snippets?limit=3');
    const second = await t.api('GET', `/v1/snippets?limit=3&cursor=${first.body.next_cursor}`);
    expect([...first.body.data, ...second.body.data].map((x: { id: string }) => x.id).sort()).toEqual(created.map((r) => r.body.id).sort());
    expect((await t.api('GET', `/v1/snippets?limit=3&type=json&cursor=${first.body.next_cursor}`)).status).toBe(400);

    const page = await open(s.public_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await page.text()).toBe('select 2 as canary');
    const rotated = await t.api('POST', `/v1/snippets/${s.id}/link`);
    expect((await open(s.public_url)).status).toBe(404);
    expect((await open(rotated.body.public_url)).status).toBe(200);

    const other = await createSecondOrg(t.server.db.db);
    expect((await t.api('GET', `/v1/snippets/${s.id}`, { token: other.token })).status).toBe(404);
    expect((await t.api('GET', '/v1/snippets', { token: other.token })).body.data).toEqual([]);

    expect((await t.api('DELETE', `/v1/snippets/${s.id}`)).status).toBe(204);
    expect((await t.api('GET', `/v1/snippets/${s.id}/versions/1`)).status).toBe(404);
    expect((await open(rotated.body.public_url)).status).toBe(404);
  });

  it('searches as you type there too: the last word a prefix, refs first', async () => {
    const made = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Overdue cards', body: 'Sign-up reminders' } });
    expect((await t.api('GET', '/v1/snippets?q=overd')).body.data.map((x: { id: string }) => x.id)).toEqual([made.body.id]);
    await t.api('POST', '/v1/boards', { body: { name: 'Lite board', slug: 'lite', ref_prefix: 'LIT' } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'lite', title: 'Overdue reminders' } })).body;
    const hits = await t.api('GET', '/v1/search?q=overd');
    expect(hits.status).toBe(200);
    expect(hits.body.data.map((h: { type: string }) => h.type).sort()).toEqual(['card', 'snippet']);
    expect((await t.api('GET', `/v1/search?q=${card.ref.toLowerCase()}`)).body.data[0]).toMatchObject({ type: 'card', ref: card.ref });
  });
});
