import http from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * Text and JSON responses go out compressed when the client accepts it, hashed assets
 * included (contract §13), with Fastify's own plugin (src/http/compression.ts).
 */

const INDEX = fileURLToPath(new URL('../dist/web/index.html', import.meta.url));

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  for (let i = 0; i < 30; i++) {
    const res = await t.api('POST', '/v1/boards', { body: { name: `Board number ${i} with a long enough name`, slug: `b${i}`, ref_prefix: `B${String.fromCharCode(65 + (i % 26))}${i}` } });
    expect(res.status, res.text).toBe(201);
  }
}, 60_000);
afterAll(async () => t?.close());

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET whose body is read as sent (node:http does not decompress). */
function rawGet(path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const decode = (r: Raw): string =>
  (r.headers['content-encoding'] === 'br' ? brotliDecompressSync(r.body) : r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body).toString('utf8');

/** The main script of the built app, as index.html names it (a hashed file under /assets/). */
function mainScript(): string {
  const m = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(readFileSync(INDEX, 'utf8'));
  if (!m) throw new Error('index.html names no script: run `npm run build`');
  return m[1]!;
}

describe('compression', { timeout: 60_000 }, () => {
  for (const encoding of ['br', 'gzip'] as const) {
    it(`sends a JSON list with ${encoding} when the client accepts it, the same JSON once decoded`, async () => {
      const plain = await rawGet('/v1/boards?limit=100', { authorization: `Bearer ${t.token}` });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const packed = await rawGet('/v1/boards?limit=100', { authorization: `Bearer ${t.token}`, 'accept-encoding': encoding });
      expect(packed.status).toBe(200);
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.headers['content-type']).toMatch(/^application\/json/);
      expect(packed.body.length).toBeLessThan(plain.body.length / 2);
      expect(JSON.parse(decode(packed))).toEqual(JSON.parse(plain.body.toString('utf8')));
    });

    it(`sends the app's hashed main script with ${encoding}, still cached as immutable`, async () => {
      const path = mainScript();
      const plain = await rawGet(path, {});
      const packed = await rawGet(path, { 'accept-encoding': `${encoding}, deflate` });
      expect(packed.status).toBe(200);
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.headers['cache-control']).toMatch(/immutable/);
      expect(packed.headers.vary).toMatch(/accept-encoding/i);
      expect(packed.body.length).toBeLessThan(plain.body.length / 2);
      expect(decode(packed)).toBe(plain.body.toString('utf8'));
    });
  }

  it("sends the OpenAPI document and the stylesheet compressed, and prefers br when both are accepted", async () => {
    const doc = await rawGet('/v1/openapi.json', { 'accept-encoding': 'gzip, deflate, br' });
    expect(doc.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decode(doc)).openapi).toMatch(/^3\./);
    const css = /href="(\/assets\/[^"]+\.css)"/.exec(readFileSync(INDEX, 'utf8'))![1]!;
    const style = await rawGet(css, { 'accept-encoding': 'gzip' });
    expect(style.headers['content-encoding']).toBe('gzip');
  });

  it('sends as is to a client that accepts no encoding, and an error envelope stays readable', async () => {
    const res = await rawGet('/v1/boards/nope', { authorization: `Bearer ${t.token}`, 'accept-encoding': 'identity' });
    expect(res.status).toBe(404);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString('utf8')).code).toBe('board_not_found');
  });
});
