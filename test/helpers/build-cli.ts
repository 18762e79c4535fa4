import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCES = ['src', 'commands', 'jobs', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
/** Written last by `npm run build`: when it is newer than every source, dist/ is current. */
const STAMP = join(ROOT, 'dist', 'cli-manifest.json');

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

/**
 * Tests spawn the real `tack` binary (bin/tack.js → dist/), so build it first, once per run,
 * and only when a source changed since the last build.
 */
export default function buildCli(): void {
  const built = newest(STAMP);
  if (built > 0 && built >= Math.max(...SOURCES.map((s) => newest(join(ROOT, s))))) return;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
