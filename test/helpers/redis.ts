import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { waitFor } from './wait.js';

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** Starts redis-server on the same port again (after `stop`). */
  start(): Promise<void>;
  /** Kills it (SIGKILL) and waits for the exit. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of running) p.kill('SIGKILL');
});

/** A redis-server of this test's own, on a free port, without persistence. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const r: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      proc = p;
      running.add(p);
      let out = '';
      let exited = false;
      p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      p.once('exit', () => {
        exited = true;
        running.delete(p);
      });
      await waitFor(`redis-server on port ${port}`, () => {
        if (exited) throw new Error(`redis-server exited: ${out}`);
        return /Ready to accept connections/i.test(out);
      });
    },
    async stop() {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const gone = new Promise((resolve) => p.once('exit', resolve));
      p.kill('SIGKILL');
      await gone;
    },
  };
  await r.start();
  return r;
}
