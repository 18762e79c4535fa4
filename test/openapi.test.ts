import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../src/operations/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
// A parsed JSON document walked by path; typing all of OpenAPI here would add nothing.
let doc: any;
beforeAll(async () => {
  t = await startTestServer();
  const res = await t.api('GET', '/v1/openapi.json', { token: null });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = res.body;
});
afterAll(async () => t?.close());

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('GET /v1/openapi.json', () => {
  it('is OpenAPI 3.1 and needs no token', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.version).toEqual(expect.any(String));
    expect(doc.servers).toEqual([{ url: '/v1' }]);
  });

  it('has exactly one operationId per operation in the table, at its method and path', () => {
    const found: string[] = [];
    for (const [path, item] of Object.entries<Record<string, { operationId?: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        expect(op.operationId, `${method} ${path}`).toEqual(expect.any(String));
        found.push(op.operationId!);
      }
    }
    expect(found.sort()).toEqual(operations.map((op) => op.name).sort());
    for (const op of operations) {
      const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(entry?.operationId, `${op.method} ${op.path}`).toBe(op.name);
    }
  });

  it('describes each operation with its parameters and success status', () => {
    for (const op of operations) {
      const entry = doc.paths[op.path][op.method.toLowerCase()];
      expect(Object.keys(entry.responses), op.name).toContain(String(op.status));
      const inPath = (entry.parameters ?? []).filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name);
      expect(inPath.sort(), op.name).toEqual([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
      if (op.body) expect(entry.requestBody?.content?.['application/json'], op.name).toBeDefined();
    }
  });

  it('leaves out the routes that are not operations', () => {
    for (const path of Object.keys(doc.paths)) expect(['/healthz', '/readyz', '/openapi.json', '/v1/openapi.json']).not.toContain(path);
  });
});
