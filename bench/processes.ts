import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface Child {
  proc: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a server process and resolves once it prints its address; `pattern` captures it
 * from a stdout line.
 */
export async function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv, pattern: RegExp, toUrl: (m: RegExpExecArray) => string): Promise<Child> {
  const proc = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: proc.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} ${args.join(' ')} did not start:\n${stderr}`)), 60_000);
    lines.on('line', (line) => {
      const m = pattern.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(toUrl(m));
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}:\n${stderr}`));
    });
  });
  return {
    proc,
    url,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}
