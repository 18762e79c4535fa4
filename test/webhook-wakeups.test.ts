import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { listenForEvents, type Committed } from '../src/db/event-notifications.js';
import { claimDueRuns, LEASE_MS, RUN_SIZE } from '../src/domain/webhook-outbox.js';
import { startWorker, type RunningWorker } from '../src/worker.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

// When deliveries go out (issue 29, speed and scale): at once when an event is committed and
// when a retry falls due, not at the fallback poll (here ten minutes, so only a wake-up can
// pass); a claim reads an endpoint's head, not every attempt waiting behind it; and `tack
// worker` delivers without Slack.
const POLL_MS = 600_000;
const log = pino({ level: 'silent' });
let t: TestServer;
let receiver: Receiver;
const hooks: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1' }, { webhooks: { everyMs: POLL_MS } });
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Wake-ups', slug: 'wk', ref_prefix: 'WK' } })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
afterEach(async () => {
  for (const id of hooks.splice(0)) await t.api('DELETE', `/v1/webhooks/${id}`);
  receiver.received.length = 0;
  receiver.status = 200;
  receiver.statusFor = undefined;
});

async function webhook(path: string): Promise<string> {
  const res = await t.api('POST', '/v1/webhooks', { body: { url: `http://127.0.0.1:${receiver.port}${path}`, events: ['card.'] } });
  expect(res.status).toBe(201);
  hooks.push(res.body.id);
  return res.body.id;
}

async function card(title: string): Promise<string> {
  const res = await t.api('POST', '/v1/cards', { body: { board: 'wk', title } });
  expect(res.status).toBe(201);
  const [event] = await t.database!.query<{ seq: string }>(`select seq::text from events where subject_id = $1 order by seq desc limit 1`, [res.body.id]);
  return `evt_${event!.seq}`;
}

const arrived = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.headers['webhook-id']);

describe('webhook deliveries wake up', () => {
  it("on the event's NOTIFY: a new event goes out at once, with the poll ten minutes away", async () => {
    await webhook('/now');
    const first = await card('woken');
    await waitFor('the first delivery', () => arrived('/now').includes(first), { timeoutMs: 10_000 });
    const second = await card('woken again');
    await waitFor('the second delivery', () => arrived('/now').includes(second), { timeoutMs: 10_000 });
    expect(arrived('/now')).toEqual([first, second]);
  });

  it('only for events that queued deliveries: a change no endpoint hears wakes no sweep', async () => {
    const heard: Committed[] = [];
    const listening = await listenForEvents(t.server.db, (what) => heard.push(what), log);
    try {
      // Listening begins as if deliveries were queued (what was missed before is not known).
      await waitFor('listening', () => heard.length === 1, { timeoutMs: 10_000 });
      expect(heard.splice(0)).toEqual([{ deliveries: true }]);
      // A personal todo is its owner's alone: no endpoint is told of it.
      await webhook('/cards-only');
      expect((await t.api('POST', '/v1/todos', { body: { title: 'nobody hears' } })).status).toBe(201);
      await waitFor('the todo event', () => heard.length === 1, { timeoutMs: 10_000 });
      expect(heard).toEqual([{ deliveries: false }]);
      const id = await card('an endpoint hears');
      await waitFor('the card event', () => heard.length === 2, { timeoutMs: 10_000 });
      expect(heard[1]).toEqual({ deliveries: true });
      await waitFor('its delivery', () => arrived('/cards-only').includes(id), { timeoutMs: 10_000 });
    } finally {
      await listening.stop();
    }
  });

  it('when a retry falls due (5 s after a failure), not at the poll', async () => {
    await webhook('/retry');
    receiver.statusFor = (path) => (path === '/retry' && arrived('/retry').length <= 1 ? 503 : undefined);
    const id = await card('fails once');
    await waitFor('the first attempt', () => arrived('/retry').length === 1, { timeoutMs: 10_000 });
    const failedAt = Date.now();
    await waitFor('the retry', () => arrived('/retry').length === 2, { timeoutMs: 15_000 });
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(3_000);
    expect(arrived('/retry')).toEqual([id, id]);
  });
});

describe('claiming an attempt', () => {
  it("reads the endpoint's head through the index, not the 2,000 attempts waiting behind it", async () => {
    await t.server.close();
    // The server's own runner must not take the rows under test: a second server without deliveries, same database.
    const quiet = await startTestServer({ DATABASE_URL: t.database!.url, WEBHOOK_ALLOW_PRIVATE: '1', TACK_BOOTSTRAP_TOKEN: t.token }, { webhooks: false });
    try {
      const made = await quiet.api('POST', '/v1/webhooks', { body: { url: `http://127.0.0.1:${receiver.port}/many`, events: ['card.'] } });
      expect(made.status).toBe(201);
      const res = await quiet.api('POST', '/v1/cards', { body: { board: 'wk', title: 'many' } });
      const [event] = await t.database!.query<{ seq: string }>(`select seq::text from events where subject_id = $1`, [res.body.id]);
      await t.database!.query(
        `insert into webhook_deliveries (id, webhook_id, event_id, event_seq, attempt, position, status, next_attempt_at)
         select 'whd_many' || g, $1, 'evt_' || $2, $2::bigint, 1, nextval('webhook_delivery_positions'), 'pending', now() - interval '1 minute'
         from generate_series(1, 2000) g`,
        [made.body.id, event!.seq],
      );
      await t.database!.query('analyze webhook_deliveries');
      const db = quiet.server.db.db;
      const read = await db.transaction().execute(async (trx) => {
        const [claim] = (await claimDueRuns(trx, new Date(), 1, 1)).flat();
        expect(claim?.webhook_id).toBe(made.body.id);
        // This transaction's own counts: rows a scan returned and rows fetched through an index.
        const { rows } = await sql<{ n: string }>`select (pg_stat_get_xact_tuples_returned('webhook_deliveries'::regclass) + pg_stat_get_xact_tuples_fetched('webhook_deliveries'::regclass))::text as n`.execute(trx);
        return Number(rows[0]!.n);
      });
      expect(read).toBeLessThan(50);
      // A run (once that claim's lease is over): the 50 at the front, not the 2,000.
      const later = new Date(Date.now() + LEASE_MS + 1_000);
      const runRead = await db.transaction().execute(async (trx) => {
        const [run] = await claimDueRuns(trx, later, 1, RUN_SIZE);
        expect(run).toHaveLength(RUN_SIZE);
        const { rows } = await sql<{ n: string }>`select (pg_stat_get_xact_tuples_returned('webhook_deliveries'::regclass) + pg_stat_get_xact_tuples_fetched('webhook_deliveries'::regclass))::text as n`.execute(trx);
        return Number(rows[0]!.n);
      });
      expect(runRead).toBeLessThan(4 * RUN_SIZE);
    } finally {
      await quiet.close();
    }
  });
});

describe('tack worker without Slack', () => {
  let worker: RunningWorker | undefined;
  afterAll(async () => worker?.close());

  it('delivers webhooks (woken by the NOTIFY of an API process), and runs no Slack job', async () => {
    const api = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1' }, { webhooks: false });
    try {
      const config = loadConfig({ DATABASE_URL: api.database!.url, REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379', WEBHOOK_ALLOW_PRIVATE: '1' });
      const prefix = `tack:test:worker-webhooks:${process.pid}:${Date.now()}`;
      worker = await startWorker(config, { log, prefix, webhooks: { prefix, everyMs: POLL_MS } });
      expect(worker.jobs.mode).toBe('off');
      expect(worker.webhooks?.mode).toBe('bullmq');
      expect((await api.api('POST', '/v1/boards', { body: { name: 'Worker', slug: 'wrk', ref_prefix: 'WRK' } })).status).toBe(201);
      const made = await api.api('POST', '/v1/webhooks', { body: { url: `http://127.0.0.1:${receiver.port}/worker`, events: ['card.'] } });
      expect(made.status).toBe(201);
      const res = await api.api('POST', '/v1/cards', { body: { board: 'wrk', title: 'sent by the worker' } });
      expect(res.status).toBe(201);
      const [event] = await api.database!.query<{ seq: string }>(`select seq::text from events where subject_id = $1`, [res.body.id]);
      await waitFor('the delivery from tack worker', () => arrived('/worker').includes(`evt_${event!.seq}`), { timeoutMs: 10_000 });
    } finally {
      await worker?.close();
      worker = undefined;
      await api.close();
    }
  });
});
