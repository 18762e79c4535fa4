import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KyselyPlugin } from 'kysely';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliverWebhooks, type WebhookDeps } from '../jobs/webhook-deliveries.js';
import { connect, type DbHandle } from '../src/db/connect.js';
import type { ResolvedAddress } from '../src/domain/webhook-addresses.js';
import { claimDueRuns, LEASE_MS, RUN_SIZE } from '../src/domain/webhook-outbox.js';
import { startWebhookDeliveries } from '../src/queue/webhook-runner.js';
import { Redis } from 'ioredis';
import { startPrivateRedis } from './helpers/redis.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { connectTo } from './helpers/database.js';

// Deliveries, from a receiver's point of view: signatures checked with the `standardwebhooks`
// package, the retry ladder on an injected clock, crash safety, order, and two workers.
let t: TestServer;
let receiver: Receiver;
let now = new Date('2026-03-02T09:00:00.000Z');
const clock = () => now;
const log = pino({ level: 'silent' });
const deps = (extra: Partial<WebhookDeps> = {}): WebhookDeps => ({ db: t.server.db.db, clock, log, policy: { allowPrivate: true }, timeoutMs: 2_000, ...extra });
const at = (ms: number) => new Date(now.getTime() + ms);
/** The ladder of contract §10, written out: the code's own constant must not be what checks it. */
const LADDER = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1' }, { clock });
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Webhooks', slug: 'wh', ref_prefix: 'WH' } })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

let hooks: string[] = [];
async function webhook(body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await t.api('POST', '/v1/webhooks', { body: { url: receiver.url, events: ['*'], ...body } });
  expect(res.status).toBe(201);
  hooks.push(res.body.id);
  return res.body;
}
afterEach(async () => {
  // Each test starts with no webhooks, nothing waiting and an empty receiver, a little later.
  for (const id of hooks) await t.api('DELETE', `/v1/webhooks/${id}`);
  hooks = [];
  receiver.received.length = 0;
  receiver.status = 200;
  receiver.statusFor = undefined;
  now = at(24 * 3_600_000);
});

/** Makes a card (an event every owner and admin may see: `card.created`); returns the event's id. */
async function card(title: string, api = t): Promise<string> {
  const res = await api.api('POST', '/v1/cards', { body: { board: 'wh', title } });
  expect(res.status).toBe(201);
  const [event] = await api.database!.query<{ seq: string }>(`select seq::text from events where subject_id = $1 order by seq desc limit 1`, [res.body.id]);
  return `evt_${event!.seq}`;
}

async function deliveries(id: string) {
  return (await t.api('GET', `/v1/webhooks/${id}/deliveries?limit=100`)).body.data as Array<Record<string, any>>;
}

describe('webhook deliveries', () => {
  it('are signed as Standard Webhooks specify: the standardwebhooks package verifies them; webhook-id is the event id', async () => {
    now = new Date();
    const hook = await webhook({});
    const eventId = await card('verify me');
    await deliverWebhooks(deps());
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got!.headers['webhook-id']).toBe(eventId);
    expect(got!.headers['content-type']).toBe('application/json');
    const payload = new Webhook(hook.secret).verify(got!.body, got!.headers) as { type: string; timestamp: string; data: { id: string; type: string } };
    expect(payload).toMatchObject({ type: 'card.created', data: { id: eventId, type: 'card.created' } });
    expect(payload.timestamp).toBe(JSON.parse(got!.body).data.created_at);
    const [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ event_id: eventId, attempt: 1, status: 'succeeded', response_status: 200, error: null, next_attempt_at: null });
    expect(row!.duration_ms).toBeGreaterThanOrEqual(0);
    // Someone else's secret does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(got!.body, got!.headers)).toThrow();
  });

  it('after rotating the secret, the old one stops verifying and the new one verifies', async () => {
    now = new Date();
    const hook = await webhook({});
    const rotated = (await t.api('POST', `/v1/webhooks/${hook.id}/rotate-secret`)).body;
    await card('after rotation');
    await deliverWebhooks(deps());
    const [got] = receiver.received;
    expect(() => new Webhook(hook.secret).verify(got!.body, got!.headers)).toThrow();
    expect(new Webhook(rotated.secret).verify(got!.body, got!.headers)).toMatchObject({ type: 'card.created' });
  });

  it('retry after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then give up; same webhook-id every time', async () => {
    receiver.status = 500;
    const hook = await webhook({});
    const eventId = await card('never arrives');
    const start = now.getTime();
    const times: number[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      const before = receiver.received.length;
      // Just before it is due, nothing goes; at its time, the attempt does.
      if (attempt > 1) {
        now = new Date(times[times.length - 1]! + LADDER[attempt - 2]! - 1);
        await deliverWebhooks(deps());
        expect(receiver.received.length, `attempt ${attempt} early`).toBe(before);
        now = new Date(now.getTime() + 1);
      }
      await deliverWebhooks(deps());
      expect(receiver.received.length, `attempt ${attempt}`).toBe(before + 1);
      times.push(now.getTime());
    }
    expect(times.slice(1).map((time, i) => time - times[i]!)).toEqual(LADDER);
    expect(times[0]).toBe(start);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    // Given up: nothing more, however long one waits.
    now = at(30 * 24 * 3_600_000);
    await deliverWebhooks(deps());
    expect(receiver.received).toHaveLength(8);
    const rows = await deliveries(hook.id);
    expect(rows.map((r) => r.attempt)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    expect(rows.every((r) => r.status === 'failed' && r.response_status === 500 && r.error === 'HTTP 500')).toBe(true);
    expect(rows[0]!.next_attempt_at).toBeNull();
    expect(rows[1]!.next_attempt_at).toBe(new Date(times[7]!).toISOString());
  });

  it('disables an endpoint that failed every attempt for 3 days, and records webhook.disabled (delivered to the others)', async () => {
    receiver.statusFor = (path) => (path === '/failing' ? 503 : 200);
    const failing = await webhook({ url: `http://127.0.0.1:${receiver.port}/failing`, events: ['card.'] });
    const watcher = await webhook({ url: `http://127.0.0.1:${receiver.port}/watcher`, events: ['webhook.'] });
    await card('first failure');
    await deliverWebhooks(deps());
    const since = (await t.api('GET', `/v1/webhooks/${failing.id}`)).body.failing_since;
    expect(since).toBe(now.toISOString());
    // Failing still, 2 days later: still enabled.
    now = at(2 * 24 * 3_600_000);
    await card('two days on');
    await deliverWebhooks(deps());
    expect((await t.api('GET', `/v1/webhooks/${failing.id}`)).body.enabled).toBe(true);
    // 3 days after the first failure, with no success between: disabled.
    now = at(24 * 3_600_000);
    await card('three days on');
    receiver.received.length = 0;
    await deliverWebhooks(deps());
    const off = (await t.api('GET', `/v1/webhooks/${failing.id}`)).body;
    expect(off).toMatchObject({ enabled: false, disabled_at: now.toISOString() });
    const toWatcher = receiver.received.filter((r) => r.path === '/watcher');
    const events = toWatcher.map((r) => JSON.parse(r.body).data);
    expect(events[0]).toMatchObject({ type: 'webhook.disabled', subject: { type: 'webhook', id: failing.id }, actor: { face: 'job', agent: false }, data: { id: failing.id, enabled: false } });
    expect(JSON.stringify(events[0])).not.toContain(failing.secret);
    // The watcher hears of it.
    expect(toWatcher.map((r) => JSON.parse(r.body).type)).toEqual(['webhook.disabled']);
    expect(toWatcher[0]!.headers['webhook-id']).toBe(events[0].id);
    expect(watcher.id).toMatch(/^wh_/);
    // A disabled endpoint gets nothing, however due.
    const sentToFailing = receiver.received.filter((r) => r.path === '/failing').length;
    now = at(24 * 3_600_000);
    await deliverWebhooks(deps());
    expect(receiver.received.filter((r) => r.path === '/failing').length).toBe(sentToFailing);
  });

  it('a success ends the failure streak', async () => {
    receiver.status = 500;
    const hook = await webhook({});
    await card('fails once');
    await deliverWebhooks(deps());
    expect((await t.api('GET', `/v1/webhooks/${hook.id}`)).body.failing_since).not.toBeNull();
    receiver.status = 200;
    now = at(LADDER[0]!);
    await deliverWebhooks(deps());
    expect((await t.api('GET', `/v1/webhooks/${hook.id}`)).body.failing_since).toBeNull();
  });

  it('sends what the filter names, and never a todo of a member (only its owner sees those)', async () => {
    await webhook({ url: `http://127.0.0.1:${receiver.port}/cards`, events: ['card.'] });
    await webhook({ url: `http://127.0.0.1:${receiver.port}/milestones`, events: ['milestone.created'] });
    await webhook({ url: `http://127.0.0.1:${receiver.port}/all`, events: ['*'] });
    expect((await t.api('POST', '/v1/todos', { body: { title: 'dentist (personal)' } })).status).toBe(201);
    const cardEvent = await card('filtered');
    const milestone = await t.api('POST', '/v1/milestones', { body: { ref: `M${Date.now() % 100000}`, name: 'Sprint' } });
    expect(milestone.status).toBe(201);
    const [row] = await t.database!.query<{ seq: string }>(`select seq::text from events where type = 'milestone.created' order by seq desc limit 1`);
    await deliverWebhooks(deps());
    const to = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.headers['webhook-id']);
    expect(to('/cards')).toEqual([cardEvent]);
    expect(to('/milestones')).toEqual([`evt_${row!.seq}`]);
    expect(to('/all')).toEqual([cardEvent, `evt_${row!.seq}`]);
    expect(receiver.received.some((r) => JSON.parse(r.body).type.startsWith('todo.'))).toBe(false);
  });

  it('a worker that died mid-delivery leaves the attempt to be sent again once its lease ends: never lost', async () => {
    const hook = await webhook({});
    const eventId = await card('crash');
    // A worker claims the attempt and dies before it records anything (as a killed process does).
    const [claimed] = (await claimDueRuns(t.server.db.db, now, 1, 1)).flat();
    expect(claimed!.event_id).toBe(eventId);
    expect((await deliveries(hook.id))[0]!.status).toBe('sending');
    // While its lease holds, nobody else sends it.
    now = at(LEASE_MS - 1);
    await deliverWebhooks(deps());
    expect(receiver.received).toHaveLength(0);
    now = at(1);
    await deliverWebhooks(deps());
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([eventId]);
    const rows = await deliveries(hook.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempt: 1, status: 'succeeded' });
  });

  it('a receiver down, then up, gets every event, in order of first attempt', async () => {
    await webhook({});
    await receiver.down();
    const ids: string[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        ids.push(await card(`while down ${i}`));
        await deliverWebhooks(deps());
        now = at(1_000);
      }
    } finally {
      await receiver.up();
    }
    // The first event's retry is due 5 s after it failed; the others waited behind it.
    now = at(LADDER[0]!);
    ids.push(await card('after up'));
    await deliverWebhooks(deps());
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(ids);
  });

  it('a run of attempts to one endpoint goes in order, claimed, read and recorded in a few statements for all of them', async () => {
    const hook = await webhook({});
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await card(`run ${i}`));
    // Every statement the job sends through Kysely (transactions' begin and commit are not counted).
    let statements = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const result = await deliverWebhooks(deps({ db: t.server.db.db.withPlugin(counting), lanes: 1 }));
    expect(result).toEqual({ succeeded: 12, failed: 0 });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(ids);
    // One at a time took 7 a delivery (84); a run: horizon, claim, events, outcomes, then horizon and claim finding nothing.
    expect(statements).toBeLessThanOrEqual(6);
    const rows = await deliveries(hook.id);
    // (Listed newest first by created_at: the events', all the same instant on this clock.)
    expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
    for (const row of rows) {
      expect(row).toMatchObject({ attempt: 1, status: 'succeeded', response_status: 200, error: null, next_attempt_at: null });
      expect(row.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('a run to a receiver that keeps connections alive goes over one connection, each attempt still resolved and checked', async () => {
    const keeping = await startReceiver({ keepAlive: true });
    try {
      await webhook({ url: keeping.url });
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push(await card(`kept ${i}`));
      expect(await deliverWebhooks(deps({ lanes: 1 }))).toEqual({ succeeded: 12, failed: 0 });
      expect(keeping.received.map((r) => r.headers['webhook-id'])).toEqual(ids);
      expect(keeping.connections).toBe(1);
      // A receiver that closes each connection (the usual receiver here) gets a new one per attempt, and nothing fails.
      const before = receiver.connections;
      await webhook({});
      for (let i = 0; i < 3; i++) await card(`closed ${i}`);
      expect(await deliverWebhooks(deps({ lanes: 1 }))).toEqual({ succeeded: 6, failed: 0 });
      expect(receiver.connections - before).toBe(3);
    } finally {
      await keeping.close();
    }
  });

  it('a failure in the middle of a run: what came after it stays pending, unsent, and goes in order after the retry', async () => {
    const hook = await webhook({});
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await card(`middle ${i}`));
    // The third request fails.
    receiver.statusFor = () => (receiver.received.length === 3 ? 500 : undefined);
    expect(await deliverWebhooks(deps())).toEqual({ succeeded: 2, failed: 1 });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(ids.slice(0, 3));
    const rows = await t.database!.query<{ event_id: string; attempt: number; status: string; lease_until: string | null; next_attempt_at: string | null; created_at: string }>(
      `select event_id, attempt, status, lease_until::text, next_attempt_at::text, created_at::text from webhook_deliveries where webhook_id = $1 order by xid, position, attempt`,
      [hook.id],
    );
    expect(rows.map((r) => [r.event_id, r.attempt, r.status])).toEqual([
      [ids[0], 1, 'succeeded'],
      [ids[1], 1, 'succeeded'],
      [ids[2], 1, 'failed'],
      [ids[2], 2, 'pending'],
      [ids[3], 1, 'pending'],
      [ids[4], 1, 'pending'],
    ]);
    // Given back as they were: no lease, due when they were (their event's time).
    for (const row of rows.slice(4)) {
      expect(row.lease_until).toBeNull();
      expect(row.next_attempt_at).toBe(row.created_at);
    }
    const failed = (await deliveries(hook.id)).find((r) => r.status === 'failed');
    expect(failed).toMatchObject({ event_id: ids[2], response_status: 500, error: 'HTTP 500', next_attempt_at: at(LADDER[0]!).toISOString() });
    // Before the retry is due, nothing goes: the later ones wait behind it.
    receiver.statusFor = undefined;
    now = at(LADDER[0]! - 1);
    await deliverWebhooks(deps());
    expect(receiver.received).toHaveLength(3);
    now = at(1);
    expect(await deliverWebhooks(deps())).toEqual({ succeeded: 3, failed: 0 });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([...ids.slice(0, 3), ...ids.slice(2)]);
    expect((await t.api('GET', `/v1/webhooks/${hook.id}`)).body.failing_since).toBeNull();
  });

  it("a run that takes longer than a lease extends it: another worker sweeping meanwhile sends none of the run's attempts again", async () => {
    const hook = await webhook({});
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await card(`long run ${i}`));
    // Each attempt takes 20 s on the clock: the run's six outlast the first lease (60 s). While
    // the fourth is sent (80 s in), a second worker sweeps.
    let other: Promise<unknown> | undefined;
    receiver.statusFor = () => {
      now = at(20_000);
      if (receiver.received.length === 4) other = deliverWebhooks(deps());
      return undefined;
    };
    await deliverWebhooks(deps({ lanes: 1 }));
    await other;
    expect(other).toBeDefined();
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(ids);
    const rows = await deliveries(hook.id);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.status === 'succeeded')).toBe(true);
  });

  it('a worker that died mid-run leaves the whole run to be sent again, in order, once its lease ends', async () => {
    await webhook({});
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await card(`crash in a run ${i}`));
    const [run] = await claimDueRuns(t.server.db.db, now, 1, RUN_SIZE);
    expect(run!.map((c) => c.event_id)).toEqual(ids);
    now = at(LEASE_MS - 1);
    await deliverWebhooks(deps());
    expect(receiver.received).toHaveLength(0);
    now = at(1);
    await deliverWebhooks(deps());
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(ids);
  });

  it('a claim whose run lost its head to another worker meanwhile keeps none of it: the rest is given back, pending, unsent', async () => {
    const hook = await webhook({});
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await card(`raced ${i}`));
    // Another worker's transaction holds the head (as one recording it would), and commits
    // after the claim read the attempts: the claim waits for it, then finds the head taken.
    const other = await connectTo(t.database!.url);
    try {
      await other.query('begin');
      await other.query(`update webhook_deliveries set status = 'succeeded', updated_at = now() where webhook_id = $1 and event_id = $2`, [hook.id, ids[0]]);
      const claiming = claimDueRuns(t.server.db.db, now, 1, RUN_SIZE);
      await waitFor('the claim to wait for the head', async () => {
        const [row] = await t.database!.query<{ n: string }>(`select count(*)::text as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%heads as%'`);
        return row!.n === '1';
      });
      await other.query('commit');
      expect(await claiming).toEqual([]);
    } finally {
      await other.end();
    }
    const rows = await t.database!.query<{ event_id: string; status: string; lease_until: string | null }>(
      `select event_id, status, lease_until::text from webhook_deliveries where webhook_id = $1 order by xid, position`,
      [hook.id],
    );
    expect(rows).toEqual([
      { event_id: ids[0], status: 'succeeded', lease_until: null },
      { event_id: ids[1], status: 'pending', lease_until: null },
      { event_id: ids[2], status: 'pending', lease_until: null },
    ]);
    await deliverWebhooks(deps());
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(ids.slice(1));
  });

  it('a lane that stops mid-run records what it sent and gives the rest back, pending, unsent: sent in order by the next sweep', async () => {
    const hook = await webhook({});
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await card(`stopped ${i}`));
    let stopping = false;
    receiver.statusFor = () => {
      if (receiver.received.length === 2) stopping = true;
      return undefined;
    };
    expect(await deliverWebhooks(deps({ lanes: 1, stopping: () => stopping }))).toEqual({ succeeded: 2, failed: 0 });
    const rows = await t.database!.query<{ event_id: string; status: string; lease_until: string | null }>(
      `select event_id, status, lease_until::text from webhook_deliveries where webhook_id = $1 order by xid, position`,
      [hook.id],
    );
    expect(rows.map((r) => [r.event_id, r.status, r.lease_until])).toEqual([
      [ids[0], 'succeeded', null],
      [ids[1], 'succeeded', null],
      [ids[2], 'pending', null],
      [ids[3], 'pending', null],
      [ids[4], 'pending', null],
    ]);
    await deliverWebhooks(deps());
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(ids);
  });

  it('redeliver: 202 with the new delivery, which sends the same webhook-id again', async () => {
    const hook = await webhook({});
    const eventId = await card('again');
    await deliverWebhooks(deps());
    const [first] = await deliveries(hook.id);
    const res = await t.api('POST', `/v1/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ event_id: eventId, attempt: 1, status: 'pending', response_status: null });
    expect(res.body.id).not.toBe(first!.id);
    await deliverWebhooks(deps());
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect((await deliveries(hook.id))[0]).toMatchObject({ id: res.body.id, status: 'succeeded' });
    const missing = await t.api('POST', `/v1/webhooks/${hook.id}/deliveries/whd_nope/redeliver`);
    expect(missing.status).toBe(404);
  });

  it('two workers never send one webhook-id twice, and send every one', async () => {
    const second: DbHandle = await connect({ databaseUrl: t.database!.url, dataDir: '', poolSize: 4 });
    try {
      await webhook({ url: `http://127.0.0.1:${receiver.port}/a` });
      await webhook({ url: `http://127.0.0.1:${receiver.port}/b` });
      await webhook({ url: `http://127.0.0.1:${receiver.port}/c` });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await card(`busy ${i}`));
      await Promise.all([deliverWebhooks(deps({ lanes: 3 })), deliverWebhooks(deps({ db: second.db, lanes: 3 }))]);
      for (const path of ['/a', '/b', '/c']) {
        const got = receiver.received.filter((r) => r.path === path).map((r) => r.headers['webhook-id']);
        expect(got, path).toEqual(ids);
      }
    } finally {
      await second.close();
    }
  });

  it('the runner sends on its own, with no sweep asked for', async () => {
    now = new Date();
    await webhook({});
    const runner = await startWebhookDeliveries(deps(), { redisUrl: undefined, prefix: 'unused', everyMs: 100 });
    try {
      const eventId = await card('by the runner');
      await waitFor('the runner to deliver', () => receiver.received.some((r) => r.headers['webhook-id'] === eventId));
    } finally {
      await runner.close();
    }
  });
});

describe('webhook deliveries on BullMQ', () => {
  it('sends through the queue, and a Redis that lost everything (FLUSHALL) loses no delivery', async () => {
    now = new Date();
    await webhook({});
    const redis = await startPrivateRedis();
    const runner = await startWebhookDeliveries(deps(), { redisUrl: redis.url, prefix: 'tack:test:webhooks', everyMs: 200, reupsertMs: 300 });
    const client = new Redis(redis.url);
    try {
      expect(runner.mode).toBe('bullmq');
      const first = await card('through BullMQ');
      await waitFor('the first delivery', () => receiver.received.some((r) => r.headers['webhook-id'] === first));
      await client.flushall();
      const second = await card('after the flush');
      await waitFor('the delivery after the flush', () => receiver.received.some((r) => r.headers['webhook-id'] === second));
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([first, second]);
    } finally {
      client.disconnect();
      await runner.close();
      await redis.stop();
    }
  });
});

describe('webhook deliveries: the SSRF guard on every attempt', () => {
  it("connects to the address it resolved and checked, with the URL's own host name", async () => {
    // The system resolver knows no such name: only a connection to the pinned address reaches the receiver.
    await webhook({ url: `http://pinned.example.test:${receiver.port}/pinned` });
    const eventId = await card('pinned');
    await deliverWebhooks(deps({ policy: { allowPrivate: true, lookup: async () => [{ address: '127.0.0.1', family: 4 }] } }));
    expect(receiver.received.map((r) => [r.path, r.headers.host, r.headers['webhook-id']])).toEqual([['/pinned', `pinned.example.test:${receiver.port}`, eventId]]);
  });

  it('a name that resolved to a public address at create and to 127.0.0.1 now (DNS rebinding) is not sent to', async () => {
    const answers: Record<string, string> = { 'rebind.example.test': '93.184.216.34' };
    const lookup = async (host: string): Promise<ResolvedAddress[]> => [{ address: answers[host]!, family: 4 }];
    const guarded = await startTestServer({}, { clock, webhooks: { lookup } });
    try {
      expect((await guarded.api('POST', '/v1/boards', { body: { name: 'Webhooks', slug: 'wh', ref_prefix: 'WH' } })).status).toBe(201);
      const made = await guarded.api('POST', '/v1/webhooks', { body: { url: `http://rebind.example.test:${receiver.port}/hook`, events: ['*'] } });
      expect(made.status).toBe(201);
      answers['rebind.example.test'] = '127.0.0.1';
      await card('rebound', guarded);
      await deliverWebhooks({ db: guarded.server.db.db, clock, log, policy: { allowPrivate: false, lookup }, timeoutMs: 2_000 });
      expect(receiver.received).toHaveLength(0);
      // The server's own runner, woken by the event, may be the one that tried: wait for the attempt's outcome.
      const row = await waitFor('the refused attempt', async () =>
        ((await guarded.api('GET', `/v1/webhooks/${made.body.id}/deliveries`)).body.data as Array<Record<string, any>>).find((d) => d.status === 'failed'),
      );
      expect(receiver.received).toHaveLength(0);
      expect(row).toMatchObject({ status: 'failed', response_status: null });
      expect(row.error).toMatch(/private, loopback or link-local/);
    } finally {
      await guarded.close();
    }
  });
});

describe('webhook deliveries on the embedded database (PGlite)', () => {
  it('queues with the event and delivers', async () => {
    now = new Date();
    const dir = mkdtempSync(join(tmpdir(), 'tack-webhooks-'));
    const embedded = await startTestServer({ DATA_DIR: dir, WEBHOOK_ALLOW_PRIVATE: '1' }, { clock });
    try {
      const hook = await embedded.api('POST', '/v1/webhooks', { body: { url: receiver.url, events: ['board.'] } });
      expect(hook.status).toBe(201);
      expect((await embedded.api('POST', '/v1/boards', { body: { name: 'Embedded', slug: 'emb', ref_prefix: 'EMB' } })).status).toBe(201);
      expect((await embedded.api('GET', `/v1/webhooks/${hook.body.id}/deliveries`)).body.data.map((d: { status: string }) => d.status)).toEqual(['pending']);
      await deliverWebhooks({ ...deps(), db: embedded.server.db.db });
      expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['board.created']);
      expect(new Webhook(hook.body.secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers)).toBeTruthy();
    } finally {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
