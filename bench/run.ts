/**
 * npm run bench [-- scenario …]: starts the baseline server (a bare Fastify hello route and
 * raw routes over the same database) and tack (against Postgres) as separate processes, and
 * loads each target with autocannon (50 connections, no pipelining) in alternating rounds
 * with its baselines: tack, then the raw route running the same SQL through pg and
 * JSON.stringify, then the raw route where Postgres builds the JSON, in a rotating order.
 * Prints req/s, p50/p99 and the ratio of each to the raw routes measured in the same run.
 *
 * BENCH_COMPARE_DIR=<a built checkout of tack, e.g. main> adds that tack as one more
 * variant of every target, on the same database, for a same-run comparison.
 * BENCH_TACK_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>" profiles the tack under test.
 * BENCH_HOLD=1 seeds and starts everything, prints the targets, and waits for Ctrl-C instead
 * of measuring (to load or profile one target by hand).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { generateToken } from '../src/domain/token-format.js';
import { groupTable, measure, type GroupResult, type LoadOptions, type Target } from './measure.js';
import { startProcess, type Child } from './processes.js';
import { admin, databaseUrl } from './scratch-database.js';
import { scenarios } from './scenarios/index.js';

const load: LoadOptions = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  duration: Number(process.env.BENCH_DURATION ?? 4),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const compareDir = process.env.BENCH_COMPARE_DIR;
const hold = process.env.BENCH_HOLD === '1';
const root = fileURLToPath(new URL('..', import.meta.url));
const wanted = process.argv.slice(2);

// Node options for the tack under test only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it under load.
const tackNodeArgs = (process.env.BENCH_TACK_NODE_ARGS ?? '').split(' ').filter(Boolean);

function startTack(dir: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<Child> {
  // The listening line: a JSON log record at info level, or `tack: listening on …` from an older checkout.
  return startProcess(process.execPath, [...nodeArgs, `${dir}/bin/tack.js`, 'serve'], env, /listening on (https?:\/\/[^\s"]+)/, (m) => m[1]!);
}

/** The same target on another server (the same path, query and requests). */
function onServer(target: Target, from: string, to: string, name: string): Target {
  return { ...target, name, url: target.url.replace(from, to), baselines: undefined };
}

/**
 * Every variant of a target in `ROUNDS` rounds, the order rotating each round, so that a
 * machine getting busier or quieter weighs on all of them alike. The full warm-up runs in the
 * first round only.
 */
async function measureGroup(target: Target, compare: Target | undefined, pids: Map<string, number>): Promise<GroupResult> {
  const variants: Target[] = [{ ...target, name: 'tack' }, ...(compare ? [compare] : []), ...(target.baselines ?? [])];
  const runs = variants.map(() => [] as Awaited<ReturnType<typeof measure>>[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (k + round) % variants.length;
      process.stdout.write(`  round ${round + 1}/${ROUNDS}: ${variants[i]!.name} …\n`);
      runs[i]!.push(await measure(variants[i]!, { ...load, warmup: round === 0 ? load.warmup : 1 }, pids.get(new URL(variants[i]!.url).origin)));
    }
  }
  const first = compare ? 2 : 1;
  const has = target.baselines?.length ?? 0;
  return {
    name: target.name,
    variants: variants.map((v, i) => ({ name: v.name, runs: runs[i]! })),
    ...(has >= 1 ? { raw: first } : {}),
    ...(has >= 2 ? { pgJson: first + 1 } : {}),
  };
}

/** The serving process of each server, by its URL's origin (for CPU per request). */
function pidsOf(children: (Child | undefined)[]): Map<string, number> {
  const pids = new Map<string, number>();
  for (const child of children) if (child?.proc.pid !== undefined) pids.set(new URL(child.url).origin, child.proc.pid);
  return pids;
}

async function main(): Promise<void> {
  const selected = wanted.length ? scenarios.filter((s) => wanted.includes(s.name)) : scenarios;
  if (selected.length === 0) throw new Error(`no scenario named ${wanted.join(', ')}; have ${scenarios.map((s) => s.name).join(', ')}`);
  const dbName = `tack_bench_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${dbName}`);
  const token = generateToken();
  let baseline: Child | undefined;
  let tack: Child | undefined;
  let compared: Child | undefined;
  const pool = new pg.Pool({ connectionString: databaseUrl(dbName), max: 4 });
  const scenarioEnv: Record<string, string> = {};
  try {
    for (const scenario of selected) Object.assign(scenarioEnv, await scenario.env?.());
    baseline = await startProcess(process.execPath, ['--import', 'tsx', `${root}bench/baseline-server.ts`, '0', databaseUrl(dbName)], process.env, /^listening (\d+)/, (m) => `http://127.0.0.1:${m[1]}`);
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl(dbName),
      PORT: '0',
      HOST: '127.0.0.1',
      TACK_BOOTSTRAP_TOKEN: token,
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'info',
      REDIS_URL: process.env.BENCH_REDIS_URL ?? '',
      ...scenarioEnv,
    };
    // The other checkout first: it migrates the database to what it knows, then this one adds its own.
    if (compareDir) compared = await startTack(compareDir, env);
    tack = await startTack(root, env, tackNodeArgs);
    const ctx = { url: tack.url, token, pool, databaseUrl: databaseUrl(dbName), baselineUrl: baseline.url };
    const groups: GroupResult[] = [];
    const notes: string[] = [];
    console.log(
      `load: ${load.connections} connections, no pipelining, ${ROUNDS} alternating rounds of ${load.duration}s per variant ` +
        `(${load.warmup}s warm-up in the first, 1s after)${compareDir ? `; compared with the tack in ${compareDir}` : ''}\n`,
    );
    for (const scenario of selected) {
      const targets = await scenario.setup(ctx);
      if (hold) {
        for (const t of targets) console.log(JSON.stringify({ name: t.name, url: t.url, headers: t.headers, baselines: t.baselines?.map((b) => b.url) }));
        continue;
      }
      for (const target of targets) {
        process.stdout.write(`measuring ${target.name} …\n`);
        const compare = compared ? onServer(target, tack.url, compared.url, `tack at ${compareDir}`) : undefined;
        groups.push(await measureGroup(target, compare, pidsOf([tack, compared, baseline])));
      }
      if (scenario.extra) notes.push(...(await scenario.extra(ctx)));
    }
    if (hold) {
      console.log(`holding: tack at ${tack.url}${compared ? `, tack at ${compareDir} at ${compared.url}` : ''}, database ${databaseUrl(dbName)}, token ${token}; Ctrl-C to stop`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
      return;
    }
    console.log(`\n${groupTable(groups)}\n`);
    console.log('req/s, p50 and p99: the median of the rounds; ratio = req/s / req/s of the raw route of the same target in the same run;');
    console.log('CPU ms/req: of the serving process and of all Postgres processes over the measured run, per request (the median of the rounds)');
    for (const note of notes) console.log(note);
  } finally {
    await tack?.stop();
    await compared?.stop();
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
