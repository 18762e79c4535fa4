import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from '../scenario.js';
import { startProcess, type Child } from '../processes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const probe = fileURLToPath(new URL('../memory-probe.mjs', import.meta.url));

/** A process started by a scenario, with its memory readable after GC when it was started `measured`. */
export interface Measured extends Child {
  memory(): Promise<NodeJS.MemoryUsage>;
}

let started = 0;

function withMemory(child: Child, file: string): Measured {
  return {
    ...child,
    async memory() {
      rmSync(file, { force: true });
      child.proc.kill('SIGUSR2');
      for (let i = 0; i < 200 && !existsSync(file); i++) await sleep(25);
      return JSON.parse(readFileSync(file, 'utf8')) as NodeJS.MemoryUsage;
    },
    async stop() {
      await child.stop();
      rmSync(file, { force: true });
    },
  };
}

/**
 * Another `tack serve` on the bench database (the bench's tack has bootstrapped it), without
 * jobs or webhook deliveries (`--no-jobs`), started with `--expose-gc` and the memory probe.
 */
export async function startTackServe(ctx: BenchContext, env: Record<string, string> = {}, args: string[] = ['--no-jobs']): Promise<Measured> {
  const file = join(tmpdir(), `tack-bench-memory-${process.pid}-${++started}.json`);
  const child = await startProcess(
    process.execPath,
    ['--expose-gc', '--import', probe, `${root}bin/tack.js`, 'serve', ...args],
    {
      ...process.env,
      DATABASE_URL: ctx.databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      TACK_BOOTSTRAP_TOKEN: ctx.token,
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'info',
      REDIS_URL: '',
      BENCH_MEMORY_FILE: file,
      ...env,
    },
    /listening on (https?:\/\/[^\s"]+)/,
    (m) => m[1]!,
  );
  return withMemory(child, file);
}

/** A bench process of ours (`bench/<file>`), printing `listening <port>`, measured like tack. */
export async function startBenchServer(file: string): Promise<Measured> {
  const memoryFile = join(tmpdir(), `tack-bench-memory-${process.pid}-${++started}.json`);
  const child = await startProcess(
    process.execPath,
    ['--expose-gc', '--import', probe, '--import', 'tsx', `${root}bench/${file}`],
    { ...process.env, BENCH_MEMORY_FILE: memoryFile },
    /^listening (\d+)/,
    (m) => `http://127.0.0.1:${m[1]}`,
  );
  return withMemory(child, memoryFile);
}
