/**
 * npm run bench [-- scenario …]: starts a bare Fastify baseline and tack (against Postgres)
 * as separate processes, loads each with autocannon (50 connections, no pipelining) and
 * prints req/s, p50/p99 and the ratio to the baseline measured in the same run.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { generateToken } from '../src/domain/token-format.js';
import { measure, table, type LoadOptions, type Measurement } from './measure.js';
import { startProcess, type Child } from './processes.js';
import { admin, databaseUrl } from './scratch-database.js';
import { scenarios } from './scenarios/index.js';

const load: LoadOptions = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 3),
};
const root = fileURLToPath(new URL('..', import.meta.url));
const wanted = process.argv.slice(2);

async function main(): Promise<void> {
  const selected = wanted.length ? scenarios.filter((s) => wanted.includes(s.name)) : scenarios;
  if (selected.length === 0) throw new Error(`no scenario named ${wanted.join(', ')}; have ${scenarios.map((s) => s.name).join(', ')}`);
  const dbName = `tack_bench_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${dbName}`);
  const token = generateToken();
  let baseline: Child | undefined;
  let tack: Child | undefined;
  const pool = new pg.Pool({ connectionString: databaseUrl(dbName), max: 4 });
  const scenarioEnv: Record<string, string> = {};
  try {
    for (const scenario of selected) Object.assign(scenarioEnv, await scenario.env?.());
    baseline = await startProcess(process.execPath, ['--import', 'tsx', `${root}bench/baseline-server.ts`, '0'], process.env, /^listening (\d+)/, (m) => `http://127.0.0.1:${m[1]}`);
    tack = await startProcess(
      process.execPath,
      [`${root}bin/tack.js`, 'serve'],
      {
        ...process.env,
        DATABASE_URL: databaseUrl(dbName),
        PORT: '0',
        HOST: '127.0.0.1',
        TACK_BOOTSTRAP_TOKEN: token,
        RATE_LIMIT_PER_MINUTE: '1000000',
        LOG_LEVEL: 'info',
        REDIS_URL: process.env.BENCH_REDIS_URL ?? '',
        ...scenarioEnv,
      },
      /"msg":"listening on (https?:\/\/[^\s"]+)"/,
      (m) => m[1]!,
    );
    const ctx = { url: tack.url, token, pool, databaseUrl: databaseUrl(dbName) };
    const results: Measurement[] = [];
    const notes: string[] = [];
    console.log(`load: ${load.connections} connections, no pipelining, ${load.duration}s per target after ${load.warmup}s warm-up\n`);
    const before = await measure({ name: 'baseline: bare Fastify GET /hello', url: `${baseline.url}/hello` }, load);
    for (const scenario of selected) {
      const targets = await scenario.setup(ctx);
      for (const target of targets) {
        process.stdout.write(`measuring ${target.name} …\n`);
        results.push(await measure(target, load));
      }
      if (scenario.extra) notes.push(...(await scenario.extra(ctx)));
    }
    const after = await measure({ name: 'baseline (again, at the end)', url: `${baseline.url}/hello` }, load);
    const reference: Measurement = { ...before, name: 'baseline (mean of both runs)', rps: (before.rps + after.rps) / 2 };
    console.log(`\n${table([before, after, ...results], reference)}\n`);
    console.log('ratio = req/s of the target / mean req/s of the two baseline runs');
    for (const note of notes) console.log(note);
  } finally {
    await tack?.stop();
    await baseline?.stop();
    for (const scenario of selected) await scenario.close?.();
    await pool.end();
    await admin(`drop database if exists ${dbName} with (force)`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
