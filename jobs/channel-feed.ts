import type { Db } from '../src/domain/context.js';
import { EVENT_BATCH, eventsAfter, feedCursor, startCursor } from '../src/domain/event-feed.js';
import { advanceCursor, consumerCursor } from '../src/domain/event-cursors.js';
import type { EventRow } from '../src/domain/events.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import type { JobDeps } from './deps.js';

/**
 * A reader of the events table after a stored cursor (opaque text; today an event's `seq`):
 * each batch is handed to `handle` in one transaction with the cursor's move, so a batch is
 * handled once even when two processes read at once (the one whose cursor moved first wins;
 * the other's transaction rolls back). What events mean is `handle`'s business.
 */
export interface EventConsumer {
  name: string;
  handle(trx: Db, events: readonly EventRow[]): Promise<unknown>;
}

class CursorMoved extends Error {}

/** Reads every event committed after the consumer's cursor, batch by batch; returns how many. */
export async function consumeEvents(deps: Pick<JobDeps, 'db' | 'clock'>, consumer: EventConsumer): Promise<number> {
  let read = 0;
  for (;;) {
    const from = await consumerCursor(deps.db, consumer.name, () => startCursor(deps.db));
    const rows = await eventsAfter(deps.db, from);
    if (rows.length === 0) return read;
    const to = feedCursor(rows[rows.length - 1]!);
    try {
      await writeTransaction(deps, async (trx) => {
        if (!(await advanceCursor(trx, consumer.name, from, to, deps.clock()))) throw new CursorMoved();
        await consumer.handle(trx, rows);
      });
      read += rows.length;
    } catch (err) {
      // Another reader handled this batch: carry on after it.
      if (!(err instanceof CursorMoved)) throw err;
    }
    if (rows.length < EVENT_BATCH) return read;
  }
}
