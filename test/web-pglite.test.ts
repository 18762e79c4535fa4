import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { codeOf, postSignin, signIn, signinLink } from './helpers/web.js';

/** The embedded default (PGlite, one connection): sign-in, a session's touch and its end. */
let t: TestServer;
let dir: string;
let offsetMs = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tack-web-'));
  t = await startTestServer({ DATA_DIR: dir }, { clock: () => new Date(Date.now() + offsetMs) });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('signs in once, serves /v1 by cookie (touching the session), and ends the session', async () => {
  const code = codeOf(await signinLink(t));
  const [a, b] = await Promise.all([postSignin(t, code), postSignin(t, code)]);
  expect([a.status, b.status].sort()).toEqual([303, 400]);

  const browser = await signIn(t);
  offsetMs = 2 * 3600 * 1000; // past the hourly touch, and past the auth cache's minute
  try {
    expect((await browser.request('POST', '/v1/todos', { body: { title: 'embedded' } })).status).toBe(201);
    const sessions = (await browser.request('GET', '/v1/sessions')).body.data;
    const mine = sessions.find((s: { current: boolean }) => s.current);
    expect(Date.parse(mine.last_used_at)).toBeGreaterThan(Date.now() + 3600 * 1000);
    expect((await browser.request('DELETE', `/v1/sessions/${mine.id}`)).status).toBe(204);
    expect((await browser.request('GET', '/v1/me')).status).toBe(401);
  } finally {
    offsetMs = 0;
  }
});
