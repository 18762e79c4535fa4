import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request as LoadRequest } from 'autocannon';
import { slackSignature } from '../../src/slack/signature.js';
import type { Scenario } from '../scenario.js';
import { CRITERIA_PER_CARD, MILESTONE_CARDS, owner, seedMilestoneM3 } from './seed.js';

const SECRET = randomBytes(16).toString('hex');
const SLACK_USER = 'UBENCHOWNER';
// A busy workspace: far more slash commands than people type, far fewer than saturation.
const PACED_RATE = 20;
const PACED_SECONDS = 15;

/**
 * A stand-in for Slack on loopback: the response_urls the server answers commands through,
 * and the Web API (which a linked user's command never calls). It only counts.
 */
class FakeSlack {
  replies = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const isReply = (req.url ?? '').startsWith('/response/');
        if (isReply) this.replies += 1;
        res.writeHead(200, { 'content-type': isReply ? 'text/plain' : 'application/json' });
        res.end(isReply ? 'ok' : '{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

const fake = new FakeSlack();
let sent = 0;
// Commands refused "busy" in their ack (the queue after the ack was full): nothing was done.
let busy = 0;

/** A `/milestone` invocation as Slack posts it: form fields, a new trigger_id each time. */
function commandBody(text: string): string {
  return new URLSearchParams({
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    team_id: 'T0BENCH',
    team_domain: 'bench',
    channel_id: 'C0BENCH',
    channel_name: 'bench',
    user_id: SLACK_USER,
    user_name: 'owner',
    command: '/milestone',
    text,
    api_app_id: 'A0BENCH',
    is_enterprise_install: 'false',
    response_url: `${fake.url}/response/${randomBytes(8).toString('hex')}`,
    trigger_id: `13345224609.738474920.${randomBytes(16).toString('hex')}`,
  }).toString();
}

/** Signed as Slack signs, with the current timestamp. */
function signedHeaders(body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': slackSignature(SECRET, timestamp, body),
  };
}

/** Waits until `count()` reaches `target` or stops moving for `quietMs`; returns how long it took. */
async function settle(count: () => number, target: number, quietMs = 2_000): Promise<number> {
  const start = Date.now();
  let last = count();
  let lastChange = Date.now();
  while (count() < target && Date.now() - lastChange < quietMs) {
    await sleep(50);
    if (count() !== last) {
      last = count();
      lastChange = Date.now();
    }
  }
  return Date.now() - start;
}

/** The `q` quantile (0..1) of sorted values. */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * Commands sent at an even pace, each on its own schedule whatever the answers do (so a slow
 * ack cannot hide by delaying the next request); returns each one's time to the ack, in ms.
 */
async function paced(url: string, rate: number, seconds: number): Promise<{ latencies: number[]; failures: number }> {
  const latencies: number[] = [];
  let failures = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const body = commandBody('M3 status');
    const headers = signedHeaders(body);
    const sentAt = performance.now();
    pending.push(
      fetch(url, { method: 'POST', headers, body }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status === 200) latencies.push(performance.now() - sentAt);
          else failures += 1;
        },
        () => void (failures += 1),
      ),
    );
  }
  await Promise.all(pending);
  return { latencies: latencies.sort((a, b) => a - b), failures };
}

/**
 * `/milestone M3 status` over `POST /slack/events`, signed, each request a new invocation
 * (its own trigger_id, response_url and timestamp) by a linked member. The ack is the HTTP
 * response, sent before the status is computed and posted to the response_url, so the
 * client's latency is the server's time from request to ack (plus loopback).
 *
 * Two measurements: flat out with autocannon (throughput; there an ack also waits behind the
 * work of the commands acked before it), and evenly paced at 20 commands a second (the time
 * to ack itself, for a workspace far busier than people type). `GET /v1/milestones/M3/status`
 * on the same milestone is measured alongside.
 */
export const slack: Scenario = {
  name: 'slack',
  async env() {
    await fake.start();
    return { SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-bench', SLACK_API_URL: `${fake.url}/api/` };
  },
  async setup(ctx) {
    const { orgId, memberId } = await owner(ctx.pool);
    await seedMilestoneM3(ctx.pool, orgId);
    await ctx.pool.query('update members set slack_user_id = $1 where id = $2', [SLACK_USER, memberId]);

    // One command end to end first: a bench of 401s or unanswered commands would be worthless.
    const body = commandBody('M3 status');
    const res = await fetch(`${ctx.url}/slack/events`, { method: 'POST', headers: signedHeaders(body), body });
    if (res.status !== 200) throw new Error(`/slack/events answered ${res.status}: ${await res.text()}`);
    await settle(() => fake.replies, 1, 5_000);
    if (fake.replies !== 1) throw new Error('the command was acked but no reply reached the response_url');

    const command: LoadRequest = {
      method: 'POST',
      path: '/slack/events',
      setupRequest(req) {
        sent += 1;
        const text = commandBody('M3 status');
        return { ...req, body: text, headers: { ...req.headers, ...signedHeaders(text) } };
      },
      onResponse(status, body) {
        if (status === 200 && body.includes('busy')) busy += 1;
      },
    };
    sent = 0;
    busy = 0;
    fake.replies = 0;
    const size = `${MILESTONE_CARDS} cards × ${CRITERIA_PER_CARD} criteria`;
    return [
      { name: `GET /v1/milestones/M3/status (${size})`, url: `${ctx.url}/v1/milestones/M3/status`, headers: { authorization: `Bearer ${ctx.token}` } },
      { name: `Slack /milestone M3 status, request to ack (${size})`, url: `${ctx.url}/slack/events`, method: 'POST', requests: [command] },
    ];
  },
  async extra(ctx) {
    const waited = await settle(() => fake.replies + busy, sent);
    const lines = [
      `slack, flat out: ${sent} commands sent (warm-up included, every tack measured), ${fake.replies} replies reached their response_url, ${busy} were refused busy in their ack, ` +
        `${sent - fake.replies - busy} neither (sent as a round ended: their answer was not read); ` +
        `the work after the acks was done ${(waited / 1000).toFixed(1)} s after the load stopped`,
    ];
    await sleep(1_000);
    await paced(`${ctx.url}/slack/events`, PACED_RATE, 2);
    const { latencies, failures } = await paced(`${ctx.url}/slack/events`, PACED_RATE, PACED_SECONDS);
    lines.push(
      `slack, paced at ${PACED_RATE} commands/s for ${PACED_SECONDS} s: request to ack p50 ${quantile(latencies, 0.5).toFixed(1)} ms, ` +
        `p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms (${latencies.length} acked, ${failures} failed)`,
    );
    return lines;
  },
  async close() {
    await fake.close();
  },
};
