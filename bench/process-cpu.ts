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

/**
 * User plus system CPU so far of every Postgres process of the machine, in ms: the backends
 * of every connection, the WAL writer, the checkpointer. A backend that ended during a run
 * takes its CPU with it, so runs keep their connections open (autocannon's and the pools').
 */
export function postgresCpu(): number {
  let ms = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    ms += cpuOf(entry);
  }
  return ms;
}
