import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './helpers/envelope.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';

/** The app's pages, files and headers (contract §8), against a small stand-in build. */
const PAGES = [
  '/',
  '/boards',
  '/boards/eng',
  '/cards/ENG-42',
  '/todos',
  '/snippets',
  '/snippets/snp_abc',
  '/snippets/deploy-notes',
  '/milestones',
  '/milestones/M3',
  '/settings',
  '/settings/api-keys',
  '/settings/sessions',
  '/settings/members',
];
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("tack");';

let webDir: string;
let t: TestServer;
let bare: TestServer;
beforeAll(async () => {
  webDir = mkdtempSync(join(tmpdir(), 'tack-web-'));
  mkdirSync(join(webDir, 'assets'));
  writeFileSync(join(webDir, 'index.html'), INDEX);
  writeFileSync(join(webDir, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  writeFileSync(join(webDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  t = await startTestServer({}, { webDir });
  bare = await startTestServer({}, { webDir: join(webDir, 'not-built') });
});
afterAll(async () => {
  await bare?.close();
  await t?.close();
  rmSync(webDir, { recursive: true, force: true });
});

async function get(server: TestServer, path: string, accept?: string, method = 'GET'): Promise<ApiResponse> {
  const res = await fetch(`${server.url}${path}`, { method, headers: accept ? { accept } : {} });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

function expectAppHeaders(res: ApiResponse): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  const scripts = /(?:^|;)\s*script-src ([^;]*)/.exec(csp)?.[1] ?? '';
  expect(scripts).toBe("'self'");
  expect(/default-src 'self'/.test(csp)).toBe(true);
  expect(csp).toContain("object-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('upgrade-insecure-requests'); // plain HTTP: the browser must not move assets to https
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('same-origin');
  expect(res.headers.get('strict-transport-security')).toBeNull();
}

describe('page URLs', () => {
  it("answer the app's HTML, revalidated on every load, with the app's security headers", async () => {
    for (const path of PAGES) {
      const res = await get(t, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(res.text, path).toBe(INDEX);
      expect(res.headers.get('cache-control'), path).toBe('no-cache');
      expect(res.headers.get('etag'), path).not.toBeNull();
      expectAppHeaders(res);
    }
    expect((await get(t, '/boards/eng/')).status).toBe(200);
    const head = await get(t, '/todos', undefined, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('say the app is not built when there is no build (still 200 text/html)', async () => {
    for (const path of ['/', '/boards/eng', '/settings/members']) {
      const res = await get(bare, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('The web app is not built');
      expect(res.text).not.toMatch(/<script/i);
      expectAppHeaders(res);
    }
    expect((await get(bare, '/somewhere/else', 'text/html')).text).toContain('The web app is not built');
    expectEnvelope(await get(bare, '/assets/index-Ab12Cd34.js'), 404, 'not_found');
  });
});

describe('files of the build', () => {
  it('serves hashed assets as immutable for a year, and other top-level files revalidated', async () => {
    const js = await get(t, '/assets/index-Ab12Cd34.js');
    expect(js.status).toBe(200);
    expect(js.text).toBe(SCRIPT);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    const icon = await get(t, '/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(icon.headers.get('cache-control')).toBe('no-cache');
    expectAppHeaders(icon);
  });

  it('answers a missing asset, or a path out of the build, with the JSON 404', async () => {
    expectEnvelope(await get(t, '/assets/missing-123.js'), 404, 'not_found');
    expectEnvelope(await get(t, '/assets/missing-123.js', 'text/html'), 404, 'not_found');
    // Nothing outside assets/ is served as an asset (fetch itself resolves `..` and `%2e%2e`).
    for (const path of ['/assets/..%2findex.html', '/assets/%2e%2e%2findex.html', '/index.html']) {
      const res = await get(t, path);
      expect([403, 404], `${path}: ${res.status}`).toContain(res.status);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
    }
  });
});

describe('any other path', () => {
  it('is the JSON 404 envelope, unless a GET accepts text/html: then the app shows its own not-found page', async () => {
    expectEnvelope(await get(t, '/nowhere'), 404, 'not_found');
    expectEnvelope(await get(t, '/nowhere', 'application/json'), 404, 'not_found');
    expectEnvelope(await get(t, '/boards/eng/extra'), 404, 'not_found');
    const html = await get(t, '/nowhere/deeper', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(html.status).toBe(200);
    expect(html.text).toBe(INDEX);
    expectAppHeaders(html);
    const post = await fetch(`${t.url}/boards`, { method: 'POST', headers: { accept: 'text/html' } });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('is never the app under /v1, /p, /slack or /mcp', async () => {
    for (const path of ['/v1', '/v1/nowhere', '/p', '/p/nolink/extra', '/slack/nowhere', '/mcp/x', '/%76%31/nowhere', '/v1?x=1', '/%70/nolink/extra']) {
      const res = await get(t, path, 'text/html');
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(res.headers.get('content-security-policy'), path).toBeNull();
    }
    expectEnvelope(await get(t, '/p/nolink', 'text/html'), 404, 'snippet_not_found');
    expectEnvelope(await get(t, '/v1/cards/ENG-1', 'text/html'), 401, 'unauthorized');
    expectEnvelope(await get(t, '/mcp', 'text/html'), 405, 'method_not_allowed');
    expect((await get(t, '/healthz', 'text/html')).body).toEqual({ status: 'ok' });
  });
});

describe('headers elsewhere', () => {
  it('leaves /v1 JSON and public links as they were', async () => {
    const me = await t.api('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.headers.get('content-security-policy')).toBeNull();
    expect(me.headers.get('ratelimit-limit')).not.toBeNull();
    const snippet = await t.api('POST', '/v1/snippets', { body: { name: 'page', type: 'html', body: '<script>alert(1)</script>' } });
    expect(snippet.status, snippet.text).toBe(201);
    const link = await fetch(snippet.body.public_url, { headers: { accept: 'text/html' } });
    expect(link.status).toBe(200);
    expect(link.headers.get('content-security-policy')).toBe('sandbox');
    expect(link.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(link.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('lists no page, sign-in or asset route in the OpenAPI document', async () => {
    const doc = (await t.api('GET', '/v1/openapi.json', { token: null })).body;
    for (const path of ['/', '/signin', '/signout', '/*', '/assets/*', '/boards/{slug}']) expect(Object.keys(doc.paths), path).not.toContain(path);
    expect(doc.paths['/boards'].get.operationId).toBe('listBoards');
  });
});

describe("a page's own code, preloaded with the HTML", () => {
  /** A stand-in build with vite's manifest: the entry and two pages, one with a chunk of its own. */
  const BUILT_INDEX = '<!doctype html><html><head>\n    <script type="module" crossorigin src="/assets/index-E.js"></script>\n  </head><body><div id="root"></div></body></html>';
  const MANIFEST = {
    'index.html': { file: 'assets/index-E.js', src: 'index.html', isEntry: true, imports: ['_vendor-V.js'] },
    '_vendor-V.js': { file: 'assets/vendor-V.js' },
    '_dnd-D.js': { file: 'assets/dnd-D.js', imports: ['_vendor-V.js'] },
    'src/pages/board.tsx': { file: 'assets/board-B.js', src: 'src/pages/board.tsx', isDynamicEntry: true, imports: ['_vendor-V.js', '_dnd-D.js'] },
    'src/pages/todos.tsx': { file: 'assets/todos-T.js', src: 'src/pages/todos.tsx', isDynamicEntry: true, imports: ['_vendor-V.js'] },
  };
  let dir: string;
  let built: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tack-web-built-'));
    mkdirSync(join(dir, 'assets'));
    mkdirSync(join(dir, '.vite'));
    writeFileSync(join(dir, 'index.html'), BUILT_INDEX);
    writeFileSync(join(dir, '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
    built = await startTestServer({}, { webDir: dir });
  });
  afterAll(async () => {
    await built?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const preloads = (html: string) => [...html.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1]);

  it("names the page's chunks the entry does not load, and nothing else changes", async () => {
    const board = await get(built, '/boards/eng');
    expect(board.status).toBe(200);
    expect(preloads(board.text)).toEqual(['/assets/board-B.js', '/assets/dnd-D.js']);
    expect(board.text.replace(/ *<link rel="modulepreload"[^>]*>\n/g, '')).toBe(BUILT_INDEX);
    expect(preloads((await get(built, '/todos')).text)).toEqual(['/assets/todos-T.js']);
    // `/` goes on to the first board; a page the manifest does not know gets the HTML as built.
    expect(preloads((await get(built, '/')).text)).toEqual(['/assets/board-B.js', '/assets/dnd-D.js']);
    expect((await get(built, '/milestones')).text).toBe(BUILT_INDEX);
    expectAppHeaders(board);
  });

  it('answers 304 to a browser that has the same HTML, by ETag', async () => {
    const first = await fetch(`${built.url}/todos`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await fetch(`${built.url}/todos`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const other = await fetch(`${built.url}/boards/eng`, { headers: { 'if-none-match': etag! } });
    expect(other.status).toBe(200);
  });
});
