import { createServer, type Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import pino from 'pino';
import { consumeEvents } from '../../jobs/event-consumers.js';
import { CHANNEL_POSTS_CONSUMER, runChannelPosts } from '../../jobs/channel-posts.js';
import { connect } from '../../src/db/connect.js';
import type { Scenario } from '../scenario.js';
import { owner } from './seed.js';

const CARDS = 50;
const EVENTS = Number(process.env.BENCH_THREAD_EVENTS ?? 1_000);
const CHANNEL = 'CBENCHTHREADS';
/** Slack's pace is a post a second per channel; the bench runs it 100 times faster (see bench/README.md). */
const SPACING_MS = 10;

/**
 * A full collection, also when the bench process was started without `--expose-gc`: the flag
 * set at run time makes `gc` available to a new context (Node's documented V8 flags API).
 */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** A Web API that answers at once and keeps only when each post arrived. */
async function timedSlack(): Promise<{ apiUrl: string; postedAt: number[]; close(): Promise<void> }> {
  const postedAt: number[] = [];
  let seq = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0];
      let body: unknown = { ok: true };
      if (method === 'chat.postMessage') {
        postedAt.push(performance.now());
        body = { ok: true, channel: CHANNEL, ts: `1700000000.${String(++seq).padStart(6, '0')}` };
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { apiUrl: `http://127.0.0.1:${port}/api/`, postedAt, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * 1,000 card events (50 cards created, then moved back and forth) on a board a channel is
 * subscribed to: the time to post them all as 50 parents and 950 thread replies, the
 * spacing of their arrivals against the channel's pace (the most within one pace window),
 * and the collected heap before and after every sweep (the queue is in Postgres; the poster
 * holds one sweep's 200 rows at most). `BENCH_THREAD_EVENTS` sets the number of events.
 */
export const channelThreads: Scenario = {
  name: 'channel-threads',
  async setup() {
    return [];
  },
  async extra(ctx) {
    const { orgId, memberId } = await owner(ctx.pool);
    const slack = await timedSlack();
    const db = await connect({ databaseUrl: ctx.databaseUrl, dataDir: '', poolSize: 10 });
    const log = pino({ level: 'silent' });
    try {
      const deps = {
        db: db.db,
        slack: new WebClient('xoxb-bench', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }),
        clock: () => new Date(),
        config: { reminderHour: 0, slack: { org: 'default' } },
        log,
        spacingMs: SPACING_MS,
      };
      await consumeEvents(deps, CHANNEL_POSTS_CONSUMER);
      await ctx.pool.query(`insert into boards (id, org_id, name, slug, ref_prefix) values ('brd_benchthreads', $1, 'Threads', 'threads', 'THR') on conflict do nothing`, [orgId]);
      await ctx.pool.query(`insert into slack_board_subscriptions (id, org_id, board_id, channel_id, created_by) values ('sub_benchthreads', $1, 'brd_benchthreads', $2, $3)`, [orgId, CHANNEL, memberId]);
      // The events as writes record them: 50 creations, then moves, the card's data carrying its board.
      await ctx.pool.query(
        `insert into events (org_id, type, created_at, actor_member_id, actor_name, actor_agent, face, subject_type, subject_id, subject_ref, card_id, audience, changes, data)
         select $1, case when g <= ${CARDS} then 'card.created' else 'card.moved' end, now(), $2, 'Bench', false, 'api', 'card',
                'crd_bench' || (g % ${CARDS}), 'THR-' || (g % ${CARDS}), 'crd_bench' || (g % ${CARDS}), 'org',
                case when g <= ${CARDS} then '{}'::jsonb else '{"workflow_status":["backlog","in_progress"]}'::jsonb end,
                jsonb_build_object('id', 'crd_bench' || (g % ${CARDS}), 'ref', 'THR-' || (g % ${CARDS}), 'board_id', 'brd_benchthreads', 'title', 'Card ' || (g % ${CARDS}), 'workflow_status', 'in_progress', 'assignee_ids', '[]'::jsonb)
         from generate_series(1, ${EVENTS}) g order by g`,
        [orgId, memberId],
      );
      collect();
      const heapBefore = process.memoryUsage().heapUsed;
      let heapPeak = heapBefore;
      /** The heap after a full collection at the end of every sweep: flat if the backlog stays in Postgres. */
      const heapAfterSweeps: Array<{ sent: number; heap: number }> = [];
      const started = performance.now();
      let sent = 0;
      for (let run = 0; run < EVENTS / 10 && sent < EVENTS; run++) {
        sent += (await runChannelPosts(deps)).sent;
        heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
        collect();
        heapAfterSweeps.push({ sent, heap: process.memoryUsage().heapUsed });
      }
      const seconds = (performance.now() - started) / 1000;
      const heapAfter = heapAfterSweeps.at(-1)?.heap ?? heapBefore;
      const gaps = slack.postedAt.slice(1).map((t, i) => t - slack.postedAt[i]!);
      if (sent !== EVENTS || slack.postedAt.length !== EVENTS) throw new Error(`channel-threads: expected ${EVENTS} posts, got ${sent} sent, ${slack.postedAt.length} posted`);
      // Slack's limit is a rate with short bursts allowed: the most posts that reached the channel within any one pace window.
      let mostInWindow = 0;
      for (let i = 0, j = 0; i < slack.postedAt.length; i++) {
        while (slack.postedAt[i]! - slack.postedAt[j]! >= SPACING_MS) j++;
        mostInWindow = Math.max(mostInWindow, i - j + 1);
      }
      const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
      return [
        `channel-threads: ${EVENTS} card events → ${CARDS} parents + ${EVENTS - CARDS} thread replies in ${seconds.toFixed(1)} s at a ${SPACING_MS} ms pace (${(seconds * 1000 / EVENTS).toFixed(1)} ms a post; smallest gap ${Math.min(...gaps).toFixed(1)} ms, median ${median(gaps).toFixed(1)} ms; at most ${mostInWindow} posts within any ${SPACING_MS} ms)`,
        `channel-threads: heap ${mb(heapBefore)} MB before (collected), ${mb(heapPeak)} MB at the peak, ${mb(heapAfter)} MB after (collected)`,
        `channel-threads: heap after each sweep (collected), by posts sent so far: ${heapAfterSweeps.map((h) => `${h.sent}: ${mb(h.heap)}`).join(', ')} MB`,
      ];
    } finally {
      await db.close();
      await slack.close();
    }
  },
};
