import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

const BASE = 'https://snippets.example.com/share/links';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ PUBLIC_BASE_URL: `${BASE}/` });
});
afterAll(async () => t?.close());

const create = async (body: Record<string, unknown>) => {
  const res = await t.api('POST', '/v1/snippets', { body });
  expect(res.status).toBe(201);
  return res.body;
};

/** The public link as the server sees it: the path of PUBLIC_BASE_URL, no auth. */
const open = (publicUrl: string, method = 'GET') => fetch(`${t.url}${new URL(publicUrl).pathname}`, { method });

function expectInert(res: Response) {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('content-security-policy')).toBe('sandbox');
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('public links', () => {
  it('live under PUBLIC_BASE_URL and are unguessable', async () => {
    const links = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const s = await create({ type: 'txt', name: `Link ${i}`, body: 'x' });
      expect(s.public_url.startsWith(`${BASE}/`)).toBe(true);
      const link = s.public_url.slice(BASE.length + 1);
      // 43 base64url characters: 256 bits.
      expect(link).toMatch(/^[A-Za-z0-9_-]{43}$/);
      links.add(link);
    }
    expect(links.size).toBe(20);
  });

  it('serve html as inert text/plain without auth, with nosniff and a sandbox CSP', async () => {
    const html = '<!doctype html><script>alert(document.cookie)</script><p>hi</p>';
    const s = await create({ type: 'html', name: 'Page', body: html });
    const res = await open(s.public_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expectInert(res);
    expect(await res.text()).toBe(html);
  });

  it('serve json as application/json, sql and txt as text/plain, byte for byte', async () => {
    const body = '{"name":"Zoë","emoji":"🎉","nested":{"a":[1,2]}}';
    const json = await open((await create({ type: 'json', name: 'Data', body })).public_url);
    expect(json.headers.get('content-type')).toBe('application/json');
    expectInert(json);
    expect(Buffer.from(await json.arrayBuffer()).equals(Buffer.from(body, 'utf8'))).toBe(true);
    for (const type of ['sql', 'txt']) {
      const text = `-- ${type}\nselect 'ünïcödé' as "x";\t\r\n`;
      const res = await open((await create({ type, name: `T ${type}`, body: text })).public_url);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expectInert(res);
      expect(await res.text()).toBe(text);
    }
  });

  it('answer HEAD, and show the current version', async () => {
    const s = await create({ type: 'txt', name: 'Evolving', body: 'first' });
    const head = await open(s.public_url, 'HEAD');
    expect(head.status).toBe(200);
    expectInert(head);
    await t.api('PATCH', `/v1/snippets/${s.id}`, { body: { body: 'second' } });
    expect(await (await open(s.public_url)).text()).toBe('second');
  });

  it('rotate: the old link is dead at once, the new one works and is the snippet public_url', async () => {
    const s = await create({ type: 'txt', name: 'Rotating', body: 'secret-ish' });
    expect((await open(s.public_url)).status).toBe(200);
    const rotated = await t.api('POST', `/v1/snippets/${s.id}/link`);
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body)).toEqual(['public_url']);
    expect(rotated.body.public_url).not.toBe(s.public_url);
    expect(rotated.body.public_url.startsWith(`${BASE}/`)).toBe(true);
    const old = await open(s.public_url);
    expect(old.status).toBe(404);
    const envelope = (await old.json()) as { request_id: string };
    expect(envelope).toMatchObject({ code: 'snippet_not_found', http_status: 404 });
    expect(envelope.request_id).toBe(old.headers.get('x-request-id'));
    expect(JSON.stringify(envelope)).not.toContain('secret-ish');
    expect(await (await open(rotated.body.public_url)).text()).toBe('secret-ish');
    expect((await t.api('GET', `/v1/snippets/${s.id}`)).body.public_url).toBe(rotated.body.public_url);

    const again = await t.api('POST', `/v1/snippets/${s.slug}/link`);
    expect((await open(rotated.body.public_url)).status).toBe(404);
    expect((await open(s.public_url)).status).toBe(404);
    expect((await open(again.body.public_url)).status).toBe(200);
    // Rotating changes no content: no new version, no new updated_at.
    const now = (await t.api('GET', `/v1/snippets/${s.id}`)).body;
    expect(now.version).toBe(1);
    expect(now.updated_at).toBe(s.updated_at);
  });

  it('replays a rotation sent twice with one Idempotency-Key instead of rotating twice', async () => {
    const s = await create({ type: 'txt', name: 'Rotate once', body: 'r' });
    const headers = { 'idempotency-key': 'rotate-1' };
    const first = await t.api('POST', `/v1/snippets/${s.id}/link`, { headers });
    const second = await t.api('POST', `/v1/snippets/${s.id}/link`, { headers });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.public_url).toBe(first.body.public_url);
    expect((await open(first.body.public_url)).status).toBe(200);
  });

  it('die with the snippet', async () => {
    const s = await create({ type: 'txt', name: 'Short lived', body: 'bye' });
    expect((await t.api('DELETE', `/v1/snippets/${s.id}`)).status).toBe(204);
    const res = await open(s.public_url);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe('snippet_not_found');
  });

  it('serve a private snippet to whoever holds the link', async () => {
    const s = await create({ type: 'txt', name: 'Private but shared', body: 'p', visibility: 'private' });
    expect((await open(s.public_url)).status).toBe(200);
  });

  it('answer 404 for made-up links and only under the configured path', async () => {
    const s = await create({ type: 'txt', name: 'Where', body: 'w' });
    const link = s.public_url.slice(BASE.length + 1);
    for (const path of [
      `/share/links/${'A'.repeat(43)}`,
      '/share/links/short',
      `/share/links/${link}x`,
      `/share/links/${encodeURIComponent("' or 1=1 --")}`,
      `/share/links/%00${link.slice(1)}`,
      `/p/${link}`,
      `/share/${link}`,
    ]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { http_status: number }).http_status).toBe(404);
    }
    expect((await fetch(`${t.url}/share/links/${link}`, { method: 'POST' })).status).toBe(404);
  });
});

describe('public links at the root of their own host', () => {
  let root: TestServer;
  beforeAll(async () => {
    root = await startTestServer({ PUBLIC_BASE_URL: 'https://s.example.com' });
  });
  afterAll(async () => root?.close());

  it('serve /{link} and leave the other routes alone', async () => {
    const s = await root.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Root', body: 'at the root' } });
    expect(s.body.public_url).toMatch(/^https:\/\/s\.example\.com\/[A-Za-z0-9_-]{43}$/);
    const res = await fetch(`${root.url}${new URL(s.body.public_url).pathname}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('at the root');
    expect((await fetch(`${root.url}/healthz`)).status).toBe(200);
    expect((await root.api('GET', '/v1/me')).status).toBe(200);
  });
});
