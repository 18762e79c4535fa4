import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

/** The repository root: the child runs the TypeScript sources through tsx, so it is never stale. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = 'src/cli/main.ts';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface TackProcess {
  proc: ChildProcess;
  pid: number;
  /** Lines written so far (pino's JSON logs go to stdout too: stdout is not a terminal here). */
  stdout: string[];
  stderr: string[];
  /** Set once the process has exited. */
  exit: Exit | undefined;
  exited: Promise<Exit>;
  /** Waits for a stdout line matching `re` (rejects, with the output, if the process exits first). */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  kill(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  /** stdout and stderr, for failure messages. */
  output(): string;
}

export interface ServingTack extends TackProcess {
  url: string;
}

const live = new Set<ChildProcess>();
// A failed or timed-out test must not leave servers behind.
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

/**
 * The environment a child gets: only what it needs (never the test runner's DATABASE_URL or
 * REDIS_URL by accident), info logs (the level of the "listening on" line), an ephemeral
 * port on loopback.
 */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
  };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Starts `tack <args>` as a child process (not waiting for anything). */
export function startTack(args: string[], env: Record<string, string | undefined> = {}): TackProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const lineWaiters = new Set<() => void>();
  const collect = (stream: NodeJS.ReadableStream, lines: string[]) => {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      partial += chunk;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
      for (const w of lineWaiters) w();
    });
    stream.on('end', () => {
      if (partial) lines.push(partial);
      partial = '';
    });
  };
  collect(proc.stdout!, stdout);
  collect(proc.stderr!, stderr);
  const t: TackProcess = {
    proc,
    pid: proc.pid!,
    stdout,
    stderr,
    exit: undefined,
    exited: new Promise<Exit>((resolve) => {
      proc.once('close', (code, signal) => {
        live.delete(proc);
        t.exit = { code, signal };
        for (const w of lineWaiters) w();
        resolve(t.exit);
      });
    }),
    output: () => `--- stdout\n${stdout.join('\n')}\n--- stderr\n${stderr.join('\n')}`,
    waitForLine(re, timeoutMs = 60_000) {
      return new Promise<string>((resolve, reject) => {
        const check = () => {
          const line = stdout.find((l) => re.test(l));
          if (line !== undefined) done(() => resolve(line));
          else if (t.exit) done(() => reject(new Error(`tack exited (${JSON.stringify(t.exit)}) before printing ${re}\n${t.output()}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`no line matching ${re} after ${timeoutMs} ms\n${t.output()}`))), timeoutMs);
        const done = (fn: () => void) => {
          clearTimeout(timer);
          lineWaiters.delete(check);
          fn();
        };
        lineWaiters.add(check);
        check();
      });
    },
    async kill(signal = 'SIGTERM', timeoutMs = 30_000) {
      if (t.exit) return t.exit;
      proc.kill(signal);
      await waitFor(`tack (pid ${t.pid}) to exit after ${signal}`, () => t.exit, { timeoutMs });
      return t.exit!;
    },
  };
  return t;
}

/** The log line (a JSON line: stdout is a pipe) that says where `tack serve` listens. */
export const LISTENING = /"msg":"listening on (https?:\/\/[^\s"]+)"/;

/**
 * Starts `tack serve` with `env` and waits until it listens. Kill it with `kill()` when done.
 */
export async function spawnTack(env: Record<string, string | undefined> = {}, timeoutMs = 90_000): Promise<ServingTack> {
  const t = startTack(['serve'], env);
  try {
    const line = await t.waitForLine(LISTENING, timeoutMs);
    return Object.assign(t, { url: LISTENING.exec(line)![1]! });
  } catch (err) {
    await t.kill('SIGKILL');
    throw err;
  }
}

/** Runs `tack <args>` to completion. */
export async function runTack(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string[]; stderr: string[] }> {
  const t = startTack(args, env);
  const timer = setTimeout(() => t.proc.kill('SIGKILL'), timeoutMs);
  const exit = await t.exited;
  clearTimeout(timer);
  return { ...exit, stdout: t.stdout, stderr: t.stderr };
}
