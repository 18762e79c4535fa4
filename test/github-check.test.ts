import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { runTack } from './helpers/tack.js';

/**
 * `tack github check` (issue 31): a signed ping to the webhook URL, as GitHub sends one, and a
 * plain answer to what is wrong: the secret unset on the server (404), a secret that differs
 * (401), nothing listening, or no secret here.
 */
const SECRET = 'gh-check-secret';
let withSecret: TestServer;
let withoutSecret: TestServer;

beforeAll(async () => {
  await ensureCliBuilt();
  [withSecret, withoutSecret] = await Promise.all([startTestServer({ GITHUB_WEBHOOK_SECRET: SECRET }), startTestServer({})]);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await withSecret?.close();
  await withoutSecret?.close();
});

const check = (env: Record<string, string>, url?: string) => runTack(['github', 'check', ...(url ? ['--url', url] : [])], { env });

it('says the deliveries will be accepted when the secrets agree, at APP_URL/github/webhooks by default', async () => {
  const res = await check({ GITHUB_WEBHOOK_SECRET: SECRET, APP_URL: withSecret.url });
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  expect(res.stdout).toContain(`${withSecret.url}/github/webhooks answered the signed ping (200)`);
});

it('says the secret differs when the server answers 401', async () => {
  const res = await check({ GITHUB_WEBHOOK_SECRET: 'not-the-secret' }, `${withSecret.url}/github/webhooks`);
  expect(res.code).toBe(1);
  expect(res.stderr).toContain('401');
  expect(res.stderr).toContain('GITHUB_WEBHOOK_SECRET differs');
});

it('says the server has no secret when it answers 404', async () => {
  const res = await check({ GITHUB_WEBHOOK_SECRET: SECRET }, `${withoutSecret.url}/github/webhooks`);
  expect(res.code).toBe(1);
  expect(res.stderr).toContain('404');
  expect(res.stderr).toContain('GITHUB_WEBHOOK_SECRET is not set on the server');
});

it('says so when nothing answers, and when no secret is set here', async () => {
  const port = await closedPort();
  const unreachable = await check({ GITHUB_WEBHOOK_SECRET: SECRET }, `http://127.0.0.1:${port}/github/webhooks`);
  expect(unreachable.code).toBe(1);
  expect(unreachable.stderr).toContain(`could not reach http://127.0.0.1:${port}/github/webhooks (ECONNREFUSED): is the server running`);
  const unset = await check({}, `${withSecret.url}/github/webhooks`);
  expect(unset.code).toBe(2);
  expect(unset.stderr).toContain('GITHUB_WEBHOOK_SECRET is not set here');
  for (const res of [unreachable, unset]) expect(res.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
});

/** A port nothing listens on: one the system just gave out and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
