import { consumeBatch, type EventConsumer } from '../src/domain/event-consumers.js';
import { EVENT_BATCH } from '../src/domain/event-feed.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import type { JobDeps } from './deps.js';

/**
 * Runs a consumer of the events until it has caught up: batch after batch, each in its own
 * transaction with the consumer's cursor (see src/domain/event-consumers.ts). Returns how
 * many events it consumed. Another process consuming at the same time waits on the
 * consumer's row and then goes on from where this one left off.
 */
export async function consumeEvents(deps: Pick<JobDeps, 'db' | 'clock' | 'stopping'>, consumer: EventConsumer, limit = EVENT_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await writeTransaction(deps, (trx) => consumeBatch(trx, consumer, deps.clock(), limit));
    total += n;
    if (n < limit || deps.stopping?.()) return total;
  }
}

/** A loop that runs `work` when poked (events were committed) and every `everyMs` (the fallback). */
export interface WokenLoop {
  /** Something happened: run soon (one run at a time; a poke during a run runs once more after it). */
  poke(): void;
  /** Stops the timer and waits for the run in progress. */
  close(): Promise<void>;
}

/**
 * Runs `work` at start, when poked (the events NOTIFY of any process on the database) and
 * every `everyMs` in case a notification was missed (a lost LISTEN connection) or something
 * fell due (a DM's minute of grouping). A failed run is logged; the next one tries again.
 */
export function wokenLoop(work: () => Promise<void>, options: { everyMs: number; onError: (err: Error) => void }): WokenLoop {
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  const run = (): void => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await work();
        } catch (err) {
          options.onError(err as Error);
        }
      } while (again && !closed);
    })().finally(() => (running = undefined));
  };
  const first = setTimeout(run, 0);
  const timer = setInterval(run, options.everyMs);
  first.unref();
  timer.unref();
  return {
    poke: run,
    async close() {
      closed = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
