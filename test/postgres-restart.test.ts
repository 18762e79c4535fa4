import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../src/domain/token-format.js';
import { expectEnvelope } from './helpers/envelope.js';
import { PrivatePostgres } from './helpers/postgres-server.js';
import { apiClient, type Api, type ApiResponse } from './helpers/server.js';
import { spawnTack, type ServingTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';

/**
 * The Postgres server itself goes down under a load of keyed writes (an immediate shutdown
 * of a private server: every connection cut), stays down a while, and comes back. tack lives
 * on: requests meanwhile answer 503 in the envelope with Retry-After (no hang, no 500),
 * /readyz says 503, and once Postgres is back tack serves again by itself. Every
 * acknowledged write is there once, and the unacknowledged ones, retried with their keys,
 * are applied once.
 */

let pgServer: PrivatePostgres;
let tack: ServingTack | undefined;
const token = generateToken();

beforeAll(async () => {
  pgServer = await PrivatePostgres.create();
  await pgServer.query('create database tack');
}, 120_000);
afterAll(async () => {
  await tack?.kill('SIGKILL');
  await pgServer?.destroy();
});

interface Write {
  key: string;
  title: string;
  answer?: ApiResponse;
  error?: string;
  ms?: number;
}

async function send(api: Api, w: Write): Promise<void> {
  const started = Date.now();
  try {
    w.answer = await api('POST', '/v1/todos', { body: { title: w.title }, headers: { 'idempotency-key': w.key } });
    w.error = undefined;
  } catch (err) {
    w.answer = undefined;
    w.error = (err as Error).message;
  }
  w.ms = Date.now() - started;
}

describe('a Postgres restart under load', () => {
  it('answers 503 while it is down, recovers by itself, and loses or doubles no write', { timeout: 240_000 }, async () => {
    tack = await spawnTack({ DATABASE_URL: pgServer.url('tack'), TACK_BOOTSTRAP_TOKEN: token });
    const api = apiClient(tack.url, token);
    const writes: Write[] = Array.from({ length: 400 }, (_, i) => ({ key: `restart-${i}`, title: `restart ${i}` }));

    let next = 0;
    let phase: 'before' | 'down' | 'back' = 'before';
    const during: Write[] = [];
    const client = async () => {
      while (next < writes.length) {
        const w = writes[next++]!;
        const when = phase;
        await send(api, w);
        if (when === 'down' && phase === 'down') during.push(w);
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, client));
    await waitFor('some writes acknowledged', () => writes.filter((w) => w.answer?.status === 201).length >= 20, { timeoutMs: 60_000, intervalMs: 5 });

    // A token this process has not seen yet: its look-up meets the outage.
    const unseen = (await api('POST', '/v1/tokens', { body: { name: 'unseen', scopes: ['read'] } })).body.token as string;
    await pgServer.stop();
    phase = 'down';
    const ready = await api('GET', '/readyz', { token: null });
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual({ database: 'down' });
    // Refused for our failure, not the token's: 503, still counted, with the RateLimit headers.
    const unseenAnswer = await api('GET', '/v1/me', { token: unseen });
    expectEnvelope(unseenAnswer, 503);
    expect(unseenAnswer.headers.get('ratelimit-limit')).toBe('600');
    expect(Number(unseenAnswer.headers.get('ratelimit-remaining'))).toBeGreaterThan(0);
    await waitFor('requests answered while Postgres is down', () => during.length >= 8, { timeoutMs: 60_000, intervalMs: 20 });
    phase = 'back';
    await pgServer.start();
    await load;
    expect(tack.exit, tack.output()).toBeUndefined();

    // While it was down: the envelope with 503 and Retry-After, quickly, and nothing else.
    for (const w of during) {
      expect(w.error, `${w.key}: ${w.error}`).toBeUndefined();
      expectEnvelope(w.answer!, 503);
      expect(Number(w.answer!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(w.answer!.text).not.toMatch(/ECONNREFUSED|postgres|terminat|57P|connect/i);
      expect(w.ms).toBeLessThan(10_000);
    }
    for (const w of writes) expect([201, 503], `${w.key}: ${w.answer?.text ?? w.error}`).toContain(w.answer?.status);

    // Back by itself: the next request is served, and /readyz agrees.
    await waitFor('a write served again', async () => (await api('POST', '/v1/todos', { body: { title: 'after the restart' } })).status === 201, { timeoutMs: 30_000 });
    expect((await api('GET', '/readyz', { token: null })).status).toBe(200);

    // The client retries what was not acknowledged, with the same keys; replays of the rest.
    const acknowledged = writes.filter((w) => w.answer?.status === 201);
    const unanswered = writes.filter((w) => w.answer?.status !== 201);
    expect(unanswered.length).toBeGreaterThanOrEqual(during.length);
    for (const w of unanswered) {
      await send(api, w);
      expect(w.answer?.status, `${w.key}: ${w.answer?.text ?? w.error}`).toBe(201);
    }
    for (const w of acknowledged.slice(0, 30)) {
      const first = w.answer!;
      await send(api, w);
      expect(w.answer?.headers.get('idempotent-replayed')).toBe('true');
      expect(w.answer?.text).toBe(first.text);
    }
    const rows = await pgServer.query(`select title, count(*)::int as n from todos where title like 'restart %' group by title`, [], 'tack');
    const counts = new Map(rows.map((r) => [r.title as string, r.n as number]));
    for (const w of writes) expect(counts.get(w.title), w.title).toBe(1);
    expect((await tack.kill('SIGTERM')).code).toBe(0);
    tack = undefined;
  });
});
