import type { Logger } from 'pino';
import { JOB_NAMES } from '../domain/jobs.js';
import type { JobsHandle, RunJob } from './jobs-handle.js';

/**
 * The jobs without Redis: at start and every `everyMs`, each job in turn, in this process. A tick that
 * comes while the previous one still runs is skipped. Several processes doing this against
 * one Postgres still send everything once (the jobs claim in the database).
 */
export function startInProcessJobs(run: RunJob, options: { everyMs: number; log: Logger }): JobsHandle {
  const log = options.log.child({ component: 'jobs' });
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = (async () => {
      for (const name of JOB_NAMES) {
        try {
          await run(name);
        } catch (err) {
          log.error({ err: (err as Error).message, job: name }, 'jobs: run failed; the next tick tries again');
        }
      }
    })().finally(() => {
      running = undefined;
    });
  };
  // A first run right away (as a BullMQ scheduler does), then every `everyMs`.
  const first = setTimeout(tick, 0);
  const timer = setInterval(tick, options.everyMs);
  first.unref();
  timer.unref();
  return {
    mode: 'in-process',
    async close() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
