import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/db/connect.js';
import { createBoltApp } from '../src/slack/bolt-app.js';
import { DeliveryRecorder } from '../src/slack/delivery-recorder.js';
import { parseSlackBody } from '../src/slack/payload.js';
import { FastifyReceiver } from '../src/slack/receiver.js';
import { WorkQueue } from '../src/slack/work-queue.js';
import { connectTo } from './helpers/database.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { captureLog } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { commandBody, slackClient } from './helpers/slack-request.js';

/**
 * The ack of a slash command never waits for the shared database pool: the delivery is
 * recorded on the Slack face's own small pool, so with every connection of the shared pool
 * held (earlier commands' reads, a burst on /v1) the ack still comes at once, recorded.
 */

const SECRET = 'ack-secret';
const USER = 'U0ACK';
let fake: FakeSlack;
let t: TestServer;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl });
  const me = await t.api('GET', '/v1/me');
  expect((await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: USER } })).status).toBe(200);
  expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M1', name: 'First' } })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('the Slack ack', () => {
  it('is recorded and answered while every connection of the shared pool is busy', async () => {
    const db = t.server.db.db;
    const pool = t.server.db.pool!;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: Promise<void>[] = [];
    let holding = 0;
    // Every connection the pool may open (two of them listen: auth notifications and new events).
    const free = pool.options.max! - 2;
    for (let i = 0; i < free; i++) held.push(db.connection().execute(async () => void (holding++, await released)));
    try {
      await expect.poll(() => holding).toBe(free);
      expect([pool.totalCount, pool.idleCount]).toEqual([pool.options.max, 0]);
      const responseUrl = fake.responseUrl();
      const ack = await slackClient(t.url, SECRET).command({ command: '/milestone', text: 'M1 status', user_id: USER, response_url: responseUrl });
      expect(ack.status).toBe(200);
      expect(ack.text).toBe('');
      // Recorded before the ack, on its own connection: the shared pool is still all held.
      expect(await t.database!.query(`select kind from slack_deliveries`)).toEqual([{ kind: 'command' }]);
      // The command's own work is what waits for the shared pool, after the ack.
      expect([holding, pool.idleCount]).toEqual([free, 0]);
      release();
      await Promise.all(held);
      const reply = await fake.waitFor((c) => c.path === new URL(responseUrl).pathname);
      expect(JSON.stringify(reply.body)).toContain('First');
    } finally {
      release();
      await Promise.all(held);
    }
  });
});

// Statements recording deliveries that wait for the table lock a test holds.
async function blockedRecords(): Promise<number> {
  const rows = await t.database!.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%insert into slack_deliveries%' and pid <> pg_backend_pid()`,
  );
  return rows[0]!.n;
}

/** Holds inserts into slack_deliveries back until the returned function commits. */
async function holdDeliveryRecords(): Promise<() => Promise<void>> {
  const client = await connectTo(t.database!.url);
  await client.query('begin');
  await client.query('lock table slack_deliveries in share mode');
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    await client.query('commit');
    await client.end();
  };
}

describe('delivery records, many in one statement', () => {
  it('acts once on retries recorded in a batch with other deliveries, and on each of those', async () => {
    const retry = (n: number) => ({ headers: { 'x-slack-retry-num': String(n), 'x-slack-retry-reason': 'http_timeout' } });
    const captured = captureLog('info');
    // A server of its own, on the same database, so its log can be read and its work drained.
    const app = await startTestServer(
      { SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl, DATABASE_URL: t.database!.url },
      { log: captured.log },
    );
    const slack = slackClient(app.url, SECRET);
    const original = fake.responseUrl();
    const body = commandBody({ command: '/todo', text: 'add Recorded in a batch', response_url: original, user_id: USER });
    const others = Array.from({ length: 6 }, () => fake.responseUrl());
    const milestone = (response_url: string) => slack.command({ command: '/milestone', text: 'M1 status', user_id: USER, response_url });
    const release = await holdDeliveryRecords();
    try {
      // The original, then another command, each in a statement of its own (two connections).
      const first = slack.form(body);
      await expect.poll(blockedRecords).toBe(1);
      const second = milestone(others[0]!);
      await expect.poll(blockedRecords).toBe(2);
      // The rest wait for a statement behind those: the retries with other commands.
      const rest = [...[1, 2, 3].map((n) => slack.form(body, retry(n))), ...others.slice(1).map(milestone)];
      await release();
      const acks = await Promise.all([first, second, ...rest]);
      expect(acks.map((a) => a.status)).toEqual(Array(10).fill(200));
      await Promise.all([original, ...others].map((url) => fake.waitFor((c) => c.path === new URL(url).pathname)));
    } finally {
      await release();
      // Closing drains the work still running after its ack.
      await app.close();
    }
    const dropped = captured.lines().filter((l) => String(l.msg).includes('already handled; dropped'));
    expect(dropped.map((l) => l.retry).sort()).toEqual([1, 2, 3]);
    expect(fake.calls.filter((c) => c.path === new URL(original).pathname)).toHaveLength(1);
    const todos = (await t.api('GET', '/v1/todos?limit=100')).body.data as { title: string }[];
    expect(todos.filter((x) => x.title === 'Recorded in a batch')).toHaveLength(1);
  });

  it('records the deliveries that arrive while one statement runs in the next one, a repeated identity once', async () => {
    const statements: string[] = [];
    const handle = await connect({
      databaseUrl: t.database!.url,
      dataDir: '',
      poolSize: 1,
      log: (event) => void (event.level === 'query' && statements.push(event.query.sql)),
    });
    const release = await holdDeliveryRecords();
    try {
      const recorder = new DeliveryRecorder(handle.db, 1);
      const first = recorder.record({ identity: 'event:EvBATCH0', kind: 'event' });
      await expect.poll(blockedRecords).toBe(1);
      const waiting = [
        recorder.record({ identity: 'event:EvBATCH1', kind: 'event' }),
        recorder.record({ identity: 'event:EvBATCH1', kind: 'event' }),
        recorder.record({ identity: 'event:EvBATCH0', kind: 'event' }),
        recorder.record({ identity: 'command:batch2', kind: 'command' }),
      ];
      await release();
      expect(await Promise.all([first, ...waiting])).toEqual([true, true, false, false, true]);
      expect(statements.filter((q) => q.includes('insert into slack_deliveries'))).toHaveLength(2);
      expect(await t.database!.query(`select identity, kind from slack_deliveries where identity like '%BATCH%' or identity like '%batch%' order by identity`)).toEqual([
        { identity: 'command:batch2', kind: 'command' },
        { identity: 'event:EvBATCH0', kind: 'event' },
        { identity: 'event:EvBATCH1', kind: 'event' },
      ]);
    } finally {
      await release();
      await handle.close();
    }
  });

  it('fails only the delivery Postgres refuses, not those batched with it', async () => {
    const handle = await connect({ databaseUrl: t.database!.url, dataDir: '', poolSize: 1 });
    const release = await holdDeliveryRecords();
    try {
      const recorder = new DeliveryRecorder(handle.db, 1);
      const first = recorder.record({ identity: 'event:EvALONE0', kind: 'event' });
      await expect.poll(blockedRecords).toBe(1);
      const good = recorder.record({ identity: 'event:EvALONE1', kind: 'event' });
      const bad = recorder.record({ identity: 'event:Ev\u0000NUL', kind: 'event' });
      // Settled before the release: all three may finish while release() still closes its
      // connection, and a rejection nobody has taken yet would be reported as unhandled.
      const outcomes = Promise.allSettled([first, good, bad]);
      await release();
      const [a, b, c] = await outcomes;
      expect(a).toEqual({ status: 'fulfilled', value: true });
      expect(b).toEqual({ status: 'fulfilled', value: true });
      expect(c).toMatchObject({ status: 'rejected', reason: { code: '22P05' } });
    } finally {
      await release();
      await handle.close();
    }
  });
});

describe('a command while the command queue is full', () => {
  it('is refused "busy" in its ack, before any record; once there is room it is recorded and answered', async () => {
    const queue = new WorkQueue(1, 0);
    const receiver = new FastifyReceiver(pino({ level: 'silent' }));
    createBoltApp({ config: t.config, runtime: t.server.runtime, log: pino({ level: 'silent' }), commands: queue }, 'xoxb-test', { receiver });
    let open!: () => void;
    const occupied = queue.run(() => new Promise<void>((resolve) => (open = resolve)));
    const refusedUrl = fake.responseUrl();
    const command = (response_url: string) =>
      parseSlackBody(Buffer.from(commandBody({ command: '/milestone', text: 'M1 status', user_id: USER, response_url })), 'application/x-www-form-urlencoded');
    const recorded = async () => (await t.database!.query(`select count(*)::int as n from slack_deliveries`))[0].n as number;
    const before = await recorded();

    expect(queue.full).toBe(true);
    const refused = await receiver.dispatch(command(refusedUrl), undefined, undefined);
    expect(refused).toMatchObject({ kind: 'ack', body: { response_type: 'ephemeral', text: expect.stringContaining('busy') } });
    expect(await recorded()).toBe(before);

    open();
    await occupied;
    const acceptedUrl = fake.responseUrl();
    expect(await receiver.dispatch(command(acceptedUrl), undefined, undefined)).toEqual({ kind: 'ack', body: undefined });
    expect(await recorded()).toBe(before + 1);
    await fake.waitFor((c) => c.path === new URL(acceptedUrl).pathname);
    await receiver.drain();
    expect(fake.calls.filter((c) => c.path === new URL(refusedUrl).pathname)).toHaveLength(0);
  });
});

describe('WorkQueue', () => {
  it('runs a few jobs at a time and says full once its waiting line is', async () => {
    const queue = new WorkQueue(2, 1);
    const gates: (() => void)[] = [];
    let running = 0;
    let most = 0;
    const job = () =>
      queue.run(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
      });
    const jobs = [job(), job()];
    expect(queue.full).toBe(false);
    jobs.push(job());
    expect(queue.full).toBe(true);
    await expect.poll(() => gates.length).toBe(2);
    gates.shift()!();
    await expect.poll(() => gates.length).toBe(2);
    expect(queue.full).toBe(false);
    while (gates.length > 0) gates.shift()!();
    await expect.poll(() => gates.length + running).toBe(0);
    await Promise.all(jobs);
    expect(most).toBe(2);
  });
});
