import { mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(`DATA_DIR ${dir} is in use by another tack process (pid ${pid}); stop it or set another DATA_DIR`);
    this.name = 'DataDirInUseError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !reusedByAnotherProgram(pid);
}

/**
 * After a crash, the dead holder's pid may belong to another program by now (a container
 * restarts with few processes, so low pids come round again). Where /proc tells what a pid
 * runs (Linux), a process that is not Node cannot be a tack holding the lock.
 */
function reusedByAnotherProgram(pid: number): boolean {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return false; // no /proc here (or not readable): trust that the pid is alive
  }
  return !/node|tack/i.test(cmdline);
}

/**
 * Takes the embedded database's directory for this process: PGlite is single-process, and
 * two writers would corrupt it. A lock left by a dead process is taken over.
 * Returns the release function.
 */
export function lockDataDir(dir: string): () => void {
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true });
  const file = join(abs, 'tack.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(safeRead(file), 10);
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new DataDirInUseError(abs, holder);
      }
      // Stale: move it aside atomically so only one newcomer wins the retry.
      try {
        renameSync(file, `${file}.stale-${process.pid}`);
        unlinkSync(`${file}.stale-${process.pid}`);
      } catch {
        /* someone else took it over first; retry decides */
      }
    }
  }
  throw new DataDirInUseError(abs, Number.parseInt(safeRead(file), 10) || 0);
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
