import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './redis-server.js';

/** Where initdb and postgres are: PG_BIN, then Debian's versioned directories, then PATH. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  }
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('initdb was not found: install PostgreSQL server binaries, or set PG_BIN to their directory');
  }
}

/** Postgres refuses to run as root: as root, run it as the `postgres` user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * A private PostgreSQL server the test stops and starts again (a database restart under
 * load), in its own data directory and on its own port: never the shared one.
 */
export class PrivatePostgres {
  #proc: ChildProcess | undefined;
  #paused: number[] = [];
  readonly #bin = binDir();
  readonly #user = runAs();

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  static async create(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'tack-pg-'));
    const server = new PrivatePostgres(dir, await freePort());
    if (server.#user) chownSync(dir, server.#user.uid, server.#user.gid);
    execFileSync(join(server.#bin, 'initdb'), ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync'], {
      stdio: 'ignore',
      ...(server.#user ?? {}),
    });
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const args = ['-D', join(this.dir, 'data'), '-p', String(this.port), '-k', this.dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'];
    const proc = spawn(join(this.#bin, 'postgres'), args, { stdio: 'ignore', ...(this.#user ?? {}) });
    this.#proc = proc;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 1_000 });
      client.on('error', () => {});
      try {
        await client.connect();
        await client.query('select 1');
        return;
      } catch (err) {
        if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`postgres on ${this.port} did not start: ${(err as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await client.end().catch(() => {});
      }
    }
  }

  async query(sql: string, params: unknown[] = [], database = 'postgres'): Promise<pg.QueryResultRow[]> {
    const client = new pg.Client({ connectionString: this.url(database) });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query(sql, params)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  }

  /**
   * Stalls the server without ending it (SIGSTOP to the postmaster, then to every process it
   * forked: the backends): connections stay open and connects are accepted by the kernel,
   * but nothing is answered, as with a hung server or a network black hole. Returns the
   * pids stopped; `resume` sends them SIGCONT.
   */
  pause(): number[] {
    const postmaster = this.#proc?.pid;
    if (postmaster === undefined) throw new Error('postgres is not running');
    // The postmaster first: once it is stopped it forks no new backend.
    process.kill(postmaster, 'SIGSTOP');
    this.#paused = [postmaster, ...childrenOf(postmaster)];
    for (const pid of this.#paused.slice(1)) process.kill(pid, 'SIGSTOP');
    return this.#paused;
  }

  resume(): void {
    for (const pid of this.#paused) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        /* gone */
      }
    }
    this.#paused = [];
  }

  /** An immediate shutdown (SIGQUIT): every connection is cut at once, as in a crash. */
  async stop(): Promise<void> {
    const proc = this.#proc;
    this.#proc = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGQUIT');
    await once(proc, 'exit');
  }

  async destroy(): Promise<void> {
    this.resume();
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The pids whose parent is `ppid` (from /proc: field 4 of /proc/<pid>/stat, after the command in parentheses). */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === ppid) out.push(Number(entry));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}
