import type { Logger } from 'pino';
import type { DbHandle } from './connect.js';
import { LISTEN_TIMING, listenOn, type ListenTiming } from './pg-listener.js';
import { throttle } from './throttle.js';
import type { Database } from './schema.js';

/**
 * The channel new events are announced on (by `writeEvents`, in the writing statement, so
 * Postgres delivers it only if, and when, it commits): its payload is the last event's `seq`,
 * followed by `DELIVERIES_QUEUED` when the events queued webhook deliveries.
 */
export const EVENTS_CHANNEL = 'tack_events';
export const DELIVERIES_QUEUED = ' deliveries';

/**
 * How often, at most, a process acts on the events NOTIFY while writes keep coming. Every write
 * notifies; each wake-up reads the events (streams), claims webhook deliveries and runs the
 * consumers, a few statements each. Under load that cost one background transaction per write
 * (the `writes` bench, bench/README.md); now a burst of writes makes one wake-up per 25 ms, and
 * a single write still wakes them at once.
 */
export const EVENTS_WAKE_MS = 25;

/** What committed since the last call: whether any of it queued webhook deliveries. */
export interface Committed {
  deliveries: boolean;
}

/**
 * Calls `committed` whenever events were committed by any process on the same database: on
 * Postgres, from one LISTEN connection (watched, and listened again after a failure, when
 * `committed` is called once more so the reader catches up, as if deliveries were queued: what
 * was missed is not known); on PGlite, from its own NOTIFY. Calls made within one throttle
 * window are one call, with deliveries when any of them had some.
 */
export async function listenForEvents(handle: DbHandle, onCommit: (what: Committed) => void, log: Logger, timing: ListenTiming = LISTEN_TIMING): Promise<{ stop: () => Promise<void> }> {
  let deliveries = false;
  const throttled = throttle(() => {
    const what = { deliveries };
    deliveries = false;
    onCommit(what);
  }, EVENTS_WAKE_MS);
  const committed = (payload: string | undefined) => {
    if (payload === undefined || payload.endsWith(DELIVERIES_QUEUED)) deliveries = true;
    throttled();
  };
  if (handle.pool) {
    const listening = listenOn(handle.pool, EVENTS_CHANNEL, { notified: committed, hearing: (on) => on && committed(undefined) }, log, timing, {
      lost: 'lost the connection listening for new events; open streams wait until listening again',
      waiting: 'cannot listen for new events yet; retrying every second',
      again: 'listening for new events again',
    });
    return { stop: async () => (throttled.cancel(), listening.stop()) };
  }
  const stop = await handle.listen?.(EVENTS_CHANNEL, committed);
  return {
    stop: async () => {
      throttled.cancel();
      await stop?.();
    },
  };
}
