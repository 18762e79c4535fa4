/**
 * How long a revoked token still reads on another process. Two `tack serve` processes on one
 * scratch database (as two API instances behind a load balancer); each trial makes a token
 * on A, reads with it on B (B caches it), revokes it on A, and from the 204 on reads with it
 * on B as fast as one client can until B answers 401. Writes are not measured: every write
 * re-reads its token inside its own transaction, so none is accepted after the revocation
 * commits (test/auth-across-processes.test.ts).
 *
 *   npm run build && node --import tsx bench/revocation-window.ts [trials] [background clients]
 *
 * Background clients keep both processes busy with reads meanwhile (0 by default).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { generateToken } from '../src/domain/token-format.js';
import { startProcess, type Child } from './processes.js';
import { admin, databaseUrl } from './scratch-database.js';

const trials = Number(process.argv[2] ?? 200);
const background = Number(process.argv[3] ?? 0);
const root = fileURLToPath(new URL('..', import.meta.url));

async function request(url: string, token: string, method = 'GET', body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

function serve(dbName: string, token: string): Promise<Child> {
  return startProcess(
    process.execPath,
    [`${root}bin/tack.js`, 'serve', '--no-jobs'],
    { ...process.env, DATABASE_URL: databaseUrl(dbName), PORT: '0', HOST: '127.0.0.1', TACK_BOOTSTRAP_TOKEN: token, RATE_LIMIT_PER_MINUTE: '1000000', LOG_LEVEL: 'info', REDIS_URL: '' },
    /"msg":"listening on (https?:\/\/[^\s"]+)"/,
    (m) => m[1]!,
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const dbName = `tack_revocation_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${dbName}`);
  const owner = generateToken();
  let a: Child | undefined;
  let b: Child | undefined;
  let stop = false;
  try {
    a = await serve(dbName, owner);
    b = await serve(dbName, owner);
    const busy = Array.from({ length: background }, async (_, i) => {
      while (!stop) await request(`${i % 2 ? a!.url : b!.url}/v1/me`, owner).catch(() => {});
    });
    const readsAfter: number[] = [];
    const msAfter: number[] = [];
    for (let i = 0; i < trials; i++) {
      const made = await request(`${a.url}/v1/tokens`, owner, 'POST', { name: `trial ${i}`, scopes: ['read'] });
      const secret: string = made.json.token;
      if ((await request(`${b.url}/v1/me`, secret)).status !== 200) throw new Error('B did not accept the new token');
      const revoked = await request(`${a.url}/v1/tokens/${made.json.id}`, owner, 'DELETE');
      if (revoked.status !== 204) throw new Error(`revocation answered ${revoked.status}`);
      const t0 = performance.now();
      let accepted = 0;
      while ((await request(`${b.url}/v1/me`, secret)).status === 200) accepted++;
      readsAfter.push(accepted);
      msAfter.push(accepted === 0 ? 0 : performance.now() - t0);
    }
    stop = true;
    await Promise.all(busy);
    const open = msAfter.filter((ms) => ms > 0).sort((x, y) => x - y);
    console.log(
      JSON.stringify(
        {
          trials,
          background_clients: background,
          trials_with_a_read_accepted_after_the_204: readsAfter.filter((n) => n > 0).length,
          most_reads_accepted_in_one_trial: Math.max(...readsAfter),
          window_ms_when_open: open.length ? { p50: +percentile(open, 50).toFixed(2), p99: +percentile(open, 99).toFixed(2), max: +open.at(-1)!.toFixed(2) } : null,
        },
        null,
        2,
      ),
    );
  } finally {
    stop = true;
    await a?.stop();
    await b?.stop();
    await admin(`drop database if exists ${dbName} with (force)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
