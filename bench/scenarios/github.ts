import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scenario } from '../scenario.js';

const SECRET = randomBytes(16).toString('hex');
// GitHub's limit is 10 s per delivery; the contract's load is 200 deliveries a second.
const RATE = 200;
const SECONDS = 15;
const CARDS = 50;

let refs: string[] = [];
let number = 0;

/** A `pull_request` delivery as GitHub sends it: the fields tack reads, a new pull request each time. */
function delivery(): { body: string; headers: Record<string, string> } {
  const n = ++number;
  const ref = refs[n % refs.length]!;
  const merged = n % 2 === 0;
  const body = JSON.stringify({
    action: merged ? 'closed' : 'opened',
    number: n,
    pull_request: {
      number: n,
      html_url: `https://github.com/bench/app/pull/${n}`,
      title: `Bench change ${n}`,
      body: `Fixes ${ref}`,
      head: { ref: `${ref.toLowerCase()}-bench` },
      state: merged ? 'closed' : 'open',
      draft: false,
      merged,
      merged_at: merged ? new Date().toISOString() : null,
      merged_by: merged ? { login: 'bench-user', type: 'User' } : null,
      user: { login: 'bench-user', type: 'User' },
      updated_at: new Date().toISOString(),
    },
    repository: { full_name: 'bench/app' },
    sender: { login: 'bench-user', type: 'User' },
  });
  // Signed here with node:crypto (the server checks with @octokit/webhooks): HMAC-SHA256, hex.
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature },
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Deliveries at an even pace, each on its own schedule whatever the answers do; each one's time to its answer, in ms. */
async function paced(url: string, rate: number, seconds: number): Promise<{ latencies: number[]; failures: number }> {
  const latencies: number[] = [];
  let failures = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const { body, headers } = delivery();
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
 * `POST /github/webhooks` evenly paced at 200 deliveries a second (contract §12, issue 31):
 * each a new pull request naming one of 50 cards, every other one merged, so each answer is
 * the whole work (delivery record, link, move, events) in one transaction. GitHub gives up
 * on a delivery after 10 s: the p99 is to stay well under it.
 */
export const github: Scenario = {
  name: 'github',
  async env() {
    // Deliveries come from GitHub's few addresses: the per-address limit is not what is measured.
    return { GITHUB_WEBHOOK_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '1000000' };
  },
  async setup(ctx) {
    const auth = { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' };
    const board = await fetch(`${ctx.url}/v1/boards`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'GitHub bench', ref_prefix: 'GHB' }) });
    if (!board.ok) throw new Error(`createBoard answered ${board.status}`);
    refs = [];
    for (let i = 0; i < CARDS; i++) {
      const res = await fetch(`${ctx.url}/v1/cards`, { method: 'POST', headers: auth, body: JSON.stringify({ board: 'github-bench', title: `Bench card ${i}` }) });
      if (!res.ok) throw new Error(`createCard answered ${res.status}`);
      refs.push(((await res.json()) as { ref: string }).ref);
    }
    const first = delivery();
    const res = await fetch(`${ctx.url}/github/webhooks`, { method: 'POST', headers: first.headers, body: first.body });
    if (res.status !== 200) throw new Error(`/github/webhooks answered ${res.status}: ${await res.text()}`);
    return [];
  },
  async extra(ctx) {
    const url = `${ctx.url}/github/webhooks`;
    await paced(url, RATE, 2);
    const { latencies, failures } = await paced(url, RATE, SECONDS);
    return [
      `github, paced at ${RATE} deliveries/s for ${SECONDS} s: request to answer p50 ${quantile(latencies, 0.5).toFixed(1)} ms, ` +
        `p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms (${latencies.length} answered 200, ${failures} failed)`,
    ];
  },
};
