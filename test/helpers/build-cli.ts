import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const DIST = join(ROOT, 'dist');
const SOURCES = ['src', 'commands', 'jobs', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
/** Written last by `npm run build`: when it is newer than every source, dist/ is current. */
const STAMP = join(DIST, 'cli-manifest.json');
const LOCK = join(DIST, '.build-lock');
const STALE_LOCK_MS = 5 * 60_000;

/** Long enough for a build on a busy machine. */
export const BUILD_TIMEOUT_MS = 240_000;

function newest(path: string): number {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function isCurrent(): boolean {
  const built = newest(STAMP);
  return built > 0 && built >= Math.max(...SOURCES.map((s) => newest(join(ROOT, s))));
}

/**
 * The tests that spawn the real `tack` binary (bin/tack.js → dist/) build it first, only when
 * a source changed since the last build, one test file at a time (a lock directory), so test
 * runs that do not need the binary never pay for a build.
 */
export async function ensureCliBuilt(): Promise<void> {
  if (isCurrent()) return;
  mkdirSync(DIST, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() - newest(LOCK) > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    // Without vitest's NODE_ENV=test, which would make Vite bundle React's development build.
    const { NODE_ENV: _test, ...env } = process.env;
    if (!isCurrent()) await promisify(execFile)('npm', ['run', 'build', '--silent'], { cwd: ROOT, env });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
