import type { Logger } from 'pino';
import type { DbHandle } from './connect.js';
import { LISTEN_TIMING, listenOn, type ListenTiming } from './pg-listener.js';
import type { Database } from './schema.js';

/**
 * The channel new events are announced on (by `writeEvents`, in the writing statement, so
 * Postgres delivers it only if, and when, it commits): its payload is the last event's `seq`.
 */
export const EVENTS_CHANNEL = 'tack_events';

/**
 * Calls `committed` whenever events were committed by any process on the same database: on
 * Postgres, from one LISTEN connection (watched, and listened again after a failure, when
 * `committed` is called once more so the reader catches up); on PGlite, from its own NOTIFY.
 */
export async function listenForEvents(handle: DbHandle, committed: () => void, log: Logger, timing: ListenTiming = LISTEN_TIMING): Promise<{ stop: () => Promise<void> }> {
  if (handle.pool) {
    return listenOn(handle.pool, EVENTS_CHANNEL, { notified: committed, hearing: (on) => on && committed() }, log, timing, {
      lost: 'lost the connection listening for new events; open streams wait until listening again',
      waiting: 'cannot listen for new events yet; retrying every second',
      again: 'listening for new events again',
    });
  }
  const stop = await handle.listen?.(EVENTS_CHANNEL, committed);
  return { stop: async () => stop?.() };
}
