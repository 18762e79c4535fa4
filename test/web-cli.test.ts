import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { member, token as makeToken } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { runTack } from './helpers/tack.js';
import { browser, codeOf, postSignin, sessionCookieOf } from './helpers/web.js';

/** `tack signin-link` and the session commands generated from the table. */
let t: TestServer;
let home: string;
beforeAll(async () => {
  await ensureCliBuilt();
  t = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'tack-cli-web-'));
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const tack = (args: string[], token = t.token) =>
  runTack(args, { env: { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), TACK_URL: t.url, TACK_TOKEN: token } });

it('prints a one-time link for yourself that signs you in, and lists and ends sessions', async () => {
  const res = await tack(['signin-link']);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toMatch(new RegExp(`^${t.url.replace(/[.]/g, '\\.')}/signin\\?code=[A-Za-z0-9_-]{43}\\n$`));
  expect(res.stderr).toMatch(/valid until \d{4}-/);
  const signedIn = await postSignin(t, codeOf(res.stdout.trim()));
  expect(signedIn.status).toBe(303);
  const me = await browser(t, sessionCookieOf(signedIn)!).request('GET', '/v1/me');
  expect(me.body.member.role).toBe('owner');

  const list = await tack(['sessions', 'list', '--json']);
  expect(list.code, list.stderr).toBe(0);
  const sessions = JSON.parse(list.stdout).data;
  expect(sessions).toHaveLength(1);
  expect(sessions[0].current).toBe(false); // the CLI is a token, not that session
  const end = await tack(['sessions', 'end', sessions[0].id]);
  expect(end.code, end.stderr).toBe(0);
  expect((await browser(t, sessionCookieOf(signedIn)!).request('GET', '/v1/me')).status).toBe(401);
});

it('makes a link for another member with --member, within the ladder', async () => {
  const admin = await member(t, { name: 'Ann', role: 'admin' });
  const res = await tack(['signin-link', '--member', admin.id, '--json']);
  expect(res.code, res.stderr).toBe(0);
  expect(Object.keys(JSON.parse(res.stdout)).sort()).toEqual(['expires_at', 'url']);

  const { token: annToken } = await makeToken(t, { name: 'ann', scopes: ['read', 'write', 'config:write'], member_id: admin.id });
  const owner = (await t.api('GET', '/v1/me')).body.member.id;
  const refused = await tack(['signin-link', '--member', owner], annToken);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toBe('');
  expect(refused.stderr).toMatch(/above yours.*\(forbidden_role\)/);
  expect(refused.stderr).toMatch(/request_id: req_/);
});

it("gives the session what the token has: a narrow token's link signs in with its scopes, until it is revoked", async () => {
  const owner = (await t.api('GET', '/v1/me')).body.member.id;
  const narrow = await t.api('POST', '/v1/tokens', { body: { name: 'narrow', scopes: ['read', 'write'], member_id: owner } });
  const res = await tack(['signin-link'], narrow.body.token);
  expect(res.code, res.stderr).toBe(0);
  const signedIn = await postSignin(t, codeOf(res.stdout.trim()));
  const session = browser(t, sessionCookieOf(signedIn)!);
  expect((await session.request('GET', '/v1/me')).body).toMatchObject({ role: 'owner', scopes: ['read', 'write'] });
  expect((await session.request('POST', '/v1/boards', { body: { name: 'Wider' } })).status).toBe(403);
  const revoked = await tack(['tokens', 'revoke', narrow.body.id], narrow.body.token);
  expect(revoked.code, revoked.stderr).toBe(0);
  expect((await session.request('GET', '/v1/me')).status).toBe(401);
});
