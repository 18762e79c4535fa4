import { afterAll, describe, expect, it } from 'vitest';
import { connectTo } from './helpers/database.js';
import { expectEnvelope } from './helpers/envelope.js';
import { captureLog } from './helpers/jobs.js';
import { startPrivateRedis } from './helpers/redis.js';
import { apiClient, startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * Requests without a token (`/p/…`, `/slack/events`, `/signin`) are counted per client address
 * against RATE_LIMIT_PER_MINUTE (contract §9, issue 27 item 7): past it they are refused with
 * 429 `rate_limited` and Retry-After before the route queries or logs anything, and the
 * refusals are logged once a minute per address. With Redis, every process shares the count.
 */

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

const SLACK = { SLACK_SIGNING_SECRET: 'address-secret', SLACK_BOT_TOKEN: 'xoxb-address', SLACK_API_URL: 'http://127.0.0.1:9/api/' };

async function server(env: Record<string, string>, options: Parameters<typeof startTestServer>[1] = {}): Promise<TestServer> {
  const s = await startTestServer({ ...SLACK, ...env }, options);
  cleanups.push(() => s.close());
  return s;
}

/** A snippet's public link, as a path on the server. */
async function publicLink(t: TestServer): Promise<string> {
  const snippet = await t.api('POST', '/v1/snippets', { body: { name: 'counted', type: 'txt', body: 'hello' } });
  expect(snippet.status).toBe(201);
  return new URL(snippet.body.public_url).pathname;
}

function expectRefused(res: ApiResponse, limit: number): void {
  expectEnvelope(res, 429, 'rate_limited');
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, res.headers.get('retry-after') ?? 'no Retry-After').toBe(true);
}

const refusalLines = (lines: ReturnType<ReturnType<typeof captureLog>['lines']>) => lines.filter((l) => /rate limit reached/.test(l.msg ?? ''));

describe('requests without a token', () => {
  it('are counted per address across /p, /slack/events and /signin; past the limit 429 without a query, logged once a minute', { timeout: 60_000 }, async () => {
    let now = new Date();
    const captured = captureLog('info');
    const t = await server({ RATE_LIMIT_PER_MINUTE: '4' }, { clock: () => now, log: captured.log });
    const link = await publicLink(t);
    const anonymous = apiClient(t.url, null);

    const allowed = [
      await anonymous('GET', link),
      await anonymous('POST', '/slack/events', { raw: '{}', headers: { 'content-type': 'application/json' } }),
      await anonymous('GET', '/signin'),
      await anonymous('GET', link),
    ];
    expect(allowed.map((r) => r.status)).toEqual([200, 401, 200, 200]);
    expect(allowed.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);

    // Past the limit the link's table is not even read: with it locked, the refusal still comes at once.
    const admin = await connectTo(t.database!.url);
    cleanups.push(() => admin.end());
    await admin.query('begin');
    await admin.query('lock table snippet_links in access exclusive mode');
    try {
      for (let i = 0; i < 5; i++) expectRefused(await anonymous('GET', link), 4);
    } finally {
      await admin.query('rollback');
    }
    expectRefused(await anonymous('POST', '/slack/events', { raw: '{}', headers: { 'content-type': 'application/json' } }), 4);
    expectRefused(await anonymous('GET', '/signin?code=abc'), 4);
    expectRefused(await anonymous('POST', '/signin', { raw: 'code=abc', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.url } }), 4);
    // A token's own count is apart from its address's.
    expect((await t.api('GET', '/v1/me')).status).toBe(200);

    // Eight refusals, one line; the Slack route logged its one unsigned request, not the refused ones.
    const lines = captured.lines();
    expect(refusalLines(lines)).toHaveLength(1);
    expect(refusalLines(lines)[0]).toMatchObject({ level: 40, address: '127.0.0.1' });
    expect(lines.filter((l) => l.msg === 'Slack request refused')).toHaveLength(1);

    // A minute later: a new window, and a refusal is logged again.
    now = new Date(now.getTime() + 61_000);
    expect((await anonymous('GET', link)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await anonymous('GET', '/signin')).status).toBe(200);
    expectRefused(await anonymous('GET', link), 4);
    expectRefused(await anonymous('GET', link), 4);
    expect(refusalLines(captured.lines())).toHaveLength(2);
  });

  it('share one count per address between processes through Redis', { timeout: 60_000 }, async () => {
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    const a = await server({ RATE_LIMIT_PER_MINUTE: '3', REDIS_URL: redis.url });
    const b = await server({ RATE_LIMIT_PER_MINUTE: '3', REDIS_URL: redis.url, DATABASE_URL: a.database!.url, TACK_BOOTSTRAP_TOKEN: a.token });
    for (const s of [a, b]) await waitFor('/readyz ready with Redis', async () => (await s.api('GET', '/readyz')).body?.status === 'ready');
    const link = await publicLink(a);
    const fromA = apiClient(a.url, null);
    const fromB = apiClient(b.url, null);
    expect((await fromA('GET', link)).status).toBe(200);
    expect((await fromB('GET', link)).status).toBe(200);
    expect((await fromA('GET', '/signin')).status).toBe(200);
    expectRefused(await fromB('GET', link), 3);
    expectRefused(await fromA('POST', '/slack/events', { raw: '{}', headers: { 'content-type': 'application/json' } }), 3);
  });
});
