import { readFileSync, readdirSync } from 'node:fs';

/** The clock ticks of /proc/<pid>/stat (100 a second on Linux). */
const TICK_MS = 10;

/** User plus system CPU of one process so far, in ms (0 when it cannot be read: not Linux, or gone). */
export function cpuOf(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** User plus system CPU so far of each Postgres process of the machine, in ms, by pid. */
export function postgresCpu(): Map<string, number> {
  const byPid = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    byPid.set(entry, cpuOf(entry));
  }
  return byPid;
}

/**
 * The Postgres CPU spent between two `postgresCpu` readings: the backends of every
 * connection, the WAL writer, autovacuum. A process that ended in between takes its CPU with
 * it (an autovacuum worker's run), so the figure leaves that out rather than go below zero.
 */
export function postgresCpuSince(before: Map<string, number>): number {
  let ms = 0;
  for (const [pid, now] of postgresCpu()) ms += now - (before.get(pid) ?? 0);
  return ms;
}
