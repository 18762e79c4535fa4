import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

it('names the port the server really listens on in public links when PUBLIC_BASE_URL is unset', async () => {
  const created = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Port check', body: 'hello' } });
  expect(created.status).toBe(201);
  expect(created.body.public_url.startsWith(`${t.url}/p/`)).toBe(true);
  const page = await fetch(created.body.public_url);
  expect(page.status).toBe(200);
  expect(await page.text()).toBe('hello');
});
