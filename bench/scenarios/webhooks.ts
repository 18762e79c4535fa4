import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { connect } from '../../src/db/connect.js';
import { DELIVERIES_QUEUED, EVENTS_CHANNEL } from '../../src/db/event-notifications.js';
import { webhookPayloads } from '../../src/domain/webhook-events.js';
import { queueDeliveriesOfWritten } from '../../src/domain/webhook-outbox.js';
import { webhookSignature } from '../../src/domain/webhook-signature.js';
import type { BenchContext, Scenario } from '../scenario.js';
import { BenchReceiver, type PathLog } from '../webhook-receiver.js';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
/** How long the receiver is down in the outage part (s); 60 for the full run. */
const OUTAGE_S = Number(process.env.BENCH_WEBHOOK_OUTAGE_S ?? 60);
/** Events written per second while the receiver is down. */
const OUTAGE_RATE = 5;

const receiver = new BenchReceiver();

async function api(ctx: BenchContext, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${ctx.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ctx.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Writes refused 503 (the server shedding load on this busy machine) and sent again. */
let retried = 0;

async function createCard(ctx: BenchContext, title: string): Promise<string> {
  for (let wait = 100; ; wait *= 2) {
    const res = await api(ctx, 'POST', '/v1/cards', { board: 'whb', title });
    if (res.status === 201) return res.body.id as string;
    if (res.status !== 503 || wait > 10_000) throw new Error(`createCard: ${res.status} ${JSON.stringify(res.body)}`);
    retried++;
    await sleep(wait);
  }
}

/** Waits until `done()` or until nothing moved for `quietMs`; true when done. */
async function until(done: () => boolean, progress: () => number, quietMs: number): Promise<boolean> {
  let last = progress();
  let moved = performance.now();
  while (!done()) {
    await sleep(20);
    const now = progress();
    if (now !== last) {
      last = now;
      moved = performance.now();
    } else if (performance.now() - moved > quietMs) return false;
  }
  return true;
}

/** Sends each body in turn, signed as tack signs, with a new connection each or over one kept alive. */
async function bareLoop(path: string, bodies: { id: string; body: string }[], secret: string, keepAlive: boolean): Promise<number> {
  const agent = keepAlive ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : false;
  const started = performance.now();
  for (const { id, body } of bodies) {
    const timestamp = Math.floor(Date.now() / 1000);
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        receiver.url(path),
        {
          method: 'POST',
          agent,
          headers: {
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': webhookSignature(secret, id, timestamp, body),
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'tack-webhooks',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
  const seconds = (performance.now() - started) / 1000;
  if (agent) agent.destroy();
  return bodies.length / seconds;
}

function check(log: PathLog, expected: string[]): { missing: number; twice: number; inOrder: boolean } {
  const counts = new Map<string, number>();
  for (const id of log.ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const missing = expected.filter((id) => !counts.has(id)).length;
  const twice = [...counts.values()].filter((n) => n > 1).length;
  const firsts = log.ids.filter((id, i) => log.ids.indexOf(id) === i);
  const inOrder = firsts.length === expected.length && firsts.every((id, i) => id === expected[i]);
  return { missing, twice, inOrder };
}

/**
 * Webhook deliveries (issue 29), by the bench's tack (`tack serve`, its runner in-process):
 *
 * 1. `EVENTS` card.created events (one written through /v1, copied in SQL) before any webhook
 *    exists; then one webhook (`card.`) to a local receiver answering 200, and the events'
 *    deliveries queued in one transaction with the statement the write path uses
 *    (`queueDeliveriesOfWritten`, over the events as `written`) and the events' NOTIFY, as if they had all just been written: the time from that commit until the receiver has all of
 *    them, every one once, in order. Baseline, same run: a bare loop POSTing the same bodies,
 *    signed, one at a time to the same receiver (a new connection each, as tack connects; and
 *    over one kept-alive connection).
 * 2. The receiver down for `OUTAGE_S` seconds while events are written (5 a second), then up:
 *    when every one of them had arrived, and in what order.
 */
export const webhooks: Scenario = {
  name: 'webhooks',
  async env() {
    await receiver.up();
    return { WEBHOOK_ALLOW_PRIVATE: '1' };
  },
  async setup() {
    return [];
  },
  async extra(ctx) {
    const db = await connect({ databaseUrl: ctx.databaseUrl, dataDir: '', poolSize: 4 });
    try {
      if ((await api(ctx, 'POST', '/v1/boards', { name: 'Webhook bench', slug: 'whb', ref_prefix: 'WHB' })).status !== 201) throw new Error('createBoard failed');
      // One card.created through /v1, copied in SQL (a new seq each, so a new webhook-id): writing
      // 10,000 through /v1 took 25 minutes on this machine under its load, and it is not what is measured here.
      process.stdout.write(`webhooks: seeding ${EVENTS} card.created events (one written through /v1, copied in SQL) …\n`);
      const template = await createCard(ctx, 'Webhook bench');
      const { rows } = await ctx.pool.query<{ seq: string }>(
        `insert into events (org_id, type, created_at, actor_member_id, actor_name, actor_agent, face, subject_type, subject_id, subject_ref, card_id, audience, member_id, changes, data)
         select e.org_id, e.type, now(), e.actor_member_id, e.actor_name, e.actor_agent, e.face, e.subject_type, e.subject_id, e.subject_ref, e.card_id, e.audience, e.member_id, e.changes, e.data
         from events e, generate_series(1, $2::int) g
         where e.type = 'card.created' and e.subject_id = $1
         order by g
         returning seq::text`,
        [template, EVENTS],
      );
      const seqs = rows.map((r) => r.seq).sort((x, y) => Number(x) - Number(y));
      const ids = seqs.map((s) => `evt_${s}`);
      const hook = await api(ctx, 'POST', '/v1/webhooks', { url: receiver.url('/hook'), events: ['card.'] });
      if (hook.status !== 201) throw new Error(`createWebhook: ${hook.status} ${JSON.stringify(hook.body)}`);
      const secret = hook.body.secret as string;

      // The baseline first: the same bodies (as tack presents them), signed, sent one at a time.
      process.stdout.write('webhooks: the bare loops …\n');
      const bodies: { id: string; body: string }[] = [];
      for (let i = 0; i < seqs.length; i += 1_000) {
        const payloads = await webhookPayloads(db.db, seqs.slice(i, i + 1_000));
        const bySeq = new Map(payloads.map((p) => [p.seq, p.body]));
        for (const seq of seqs.slice(i, i + 1_000)) bodies.push({ id: `evt_${seq}`, body: bySeq.get(seq)! });
      }
      const bareNew = await bareLoop('/bare-new', bodies, secret, false);
      const bareKept = await bareLoop('/bare-kept', bodies, secret, true);

      process.stdout.write(`webhooks: tack delivers ${EVENTS} …\n`);
      const log = receiver.log('/hook');
      const queued = performance.now();
      await db.db.transaction().execute(async (trx) => {
        await sql`with written as (select seq, org_id, type, audience, created_at from events where seq = any(${sql.val(seqs.map(String))}::bigint[])), queued as (${queueDeliveriesOfWritten}) select 1`.execute(trx);
        // As writeEvents announces events that queued deliveries.
        await sql`select pg_notify(${EVENTS_CHANNEL}, ${`${seqs[seqs.length - 1]!}${DELIVERIES_QUEUED}`})`.execute(trx);
      });
      const complete = await until(() => new Set(log.ids).size >= ids.length, () => log.ids.length, 30_000);
      const seconds = ((log.at[log.at.length - 1] ?? queued) - queued) / 1000;
      const firstMs = (log.at[0] ?? NaN) - queued;
      const bulk = check(log, ids);
      const rate = log.ids.length / seconds;

      // The outage: the receiver down while events are written, then up.
      process.stdout.write(`webhooks: the receiver down for ${OUTAGE_S} s …\n`);
      await receiver.down();
      const downAt = performance.now();
      const outageCards: string[] = [];
      while (performance.now() - downAt < OUTAGE_S * 1000) {
        outageCards.push(await createCard(ctx, `During the outage ${outageCards.length}`));
        await sleep(1000 / OUTAGE_RATE);
      }
      await receiver.up();
      const upAt = performance.now();
      const outageRows = await ctx.pool.query<{ seq: string }>(`select seq::text from events where type = 'card.created' and subject_id = any($1) order by seq`, [outageCards]);
      const outageIds = outageRows.rows.map((r) => `evt_${r.seq}`);
      const before = log.ids.length;
      const wanted = new Set(outageIds);
      const arrived = () => new Set(log.ids.slice(before)).size;
      const outageComplete = await until(() => arrived() >= wanted.size, arrived, 400_000);
      const afterLog: PathLog = { ids: log.ids.slice(before), at: log.at.slice(before) };
      const outage = check(afterLog, outageIds);
      const firstAfterUp = ((afterLog.at[0] ?? NaN) - upAt) / 1000;
      const lastAfterUp = ((afterLog.at[afterLog.at.length - 1] ?? NaN) - upAt) / 1000;
      const attempts = await ctx.pool.query<{ status: string; n: string }>(
        `select status, count(*)::text as n from webhook_deliveries where event_seq = any($1::bigint[]) group by status order by status`,
        [outageIds.map((id) => id.slice(4))],
      );

      return [
        '',
        `Webhooks: ${EVENTS} events (card.created), one endpoint answering 200 at once (outage writes refused 503 and sent again: ${retried}):`,
        '| sender | deliveries/s | ratio to the bare loop (new connections) | ratio to the bare loop (kept alive) |',
        '|---|---|---|---|',
        `| tack serve (in-process runner), from the queueing commit to the last arrival | **${rate.toFixed(0)}** | **${(rate / bareNew).toFixed(2)}** | ${(rate / bareKept).toFixed(2)} |`,
        `| bare loop, one at a time, a new connection each | ${bareNew.toFixed(0)} | 1.00 | ${(bareNew / bareKept).toFixed(2)} |`,
        `| bare loop, one at a time, one kept-alive connection | ${bareKept.toFixed(0)} | ${(bareKept / bareNew).toFixed(2)} | 1.00 |`,
        `tack: ${complete ? 'all arrived' : 'STALLED'} in ${seconds.toFixed(1)} s, first after ${firstMs.toFixed(0)} ms; ${log.ids.length} requests, ${bulk.missing} missing, ${bulk.twice} webhook-ids twice, in order of first attempt: ${bulk.inOrder ? 'yes' : 'NO'}`,
        '',
        `Webhooks: the receiver down for ${OUTAGE_S} s while ${outageIds.length} events were written (${OUTAGE_RATE}/s), then up:`,
        `${outageComplete ? 'every one arrived' : 'NOT ALL ARRIVED'}: the first ${firstAfterUp.toFixed(1)} s after it came back, the last ${lastAfterUp.toFixed(1)} s after; ${outage.missing} missing, ${outage.twice} webhook-ids twice, in order of first attempt: ${outage.inOrder ? 'yes' : 'NO'}; attempts recorded: ${attempts.rows.map((r) => `${r.n} ${r.status}`).join(', ')}`,
      ];
    } finally {
      await db.close();
    }
  },
  async close() {
    await receiver.down();
  },
};
