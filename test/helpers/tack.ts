import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const TACK_BIN = join(import.meta.dirname, '..', '..', 'bin', 'tack.js');

export interface TackResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface TackOptions {
  /** The whole environment besides PATH; TACK_* from the test's own environment never leak in. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (stdin is never a terminal here). */
  input?: string | Buffer;
}

/** Runs the built `tack` binary as a user would, and collects its exit code and output. */
export function runTack(args: string[], options: TackOptions = {}): Promise<TackResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TACK_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
