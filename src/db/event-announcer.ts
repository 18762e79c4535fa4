import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { DELIVERIES_QUEUED, EVENTS_CHANNEL } from './event-notifications.js';
import type { Database } from './schema.js';

/** What a committed write recorded: its last event's `seq`, and whether its events queued webhook deliveries. */
export interface EventsWritten {
  seq: string;
  deliveries: boolean;
}

/** Both announcements as one: the later `seq`, deliveries when either queued some. */
export function together(a: EventsWritten | undefined, b: EventsWritten): EventsWritten {
  if (!a) return b;
  return { seq: BigInt(b.seq) > BigInt(a.seq) ? b.seq : a.seq, deliveries: a.deliveries || b.deliveries };
}

/** How long a failed NOTIFY waits before it is sent again (the database away). */
const RETRY_MS = 1_000;

/**
 * Announces committed events on `EVENTS_CHANNEL`, after the commit, coalesced: one NOTIFY at
 * a time from this process, carrying the last `seq` and the deliveries mark of every write
 * that committed while the one before was on its way. A NOTIFY inside each write's own
 * transaction serialized the commits of every writer on Postgres's notify lock (pgbench, the
 * events statement: 1,830 transactions a second with it, 3,640 without; bench/README.md);
 * here a quiet system still announces each write at once, and a busy one sends one NOTIFY per
 * round trip instead of one per write. A process that dies between a commit and its NOTIFY
 * leaves that event to be found by the next announcement (readers read the table, not the
 * payload). A failed NOTIFY is sent again after a second.
 */
export function eventAnnouncer(db: Kysely<Database>, log: Logger): { announce(written: EventsWritten): void; stop(): Promise<void> } {
  let pending: EventsWritten | undefined;
  // The highest seq announced: a write that got a lower seq may commit after one that got a
  // higher, and its announcement then names the higher one (readers read the table, by commit).
  let highest: EventsWritten | undefined;
  let sending: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const sendAll = async (): Promise<void> => {
    while (pending) {
      const { deliveries } = pending;
      const seq = together(highest, pending).seq;
      highest = { seq, deliveries: false };
      pending = undefined;
      try {
        await sql`select pg_notify(${EVENTS_CHANNEL}, ${seq + (deliveries ? DELIVERIES_QUEUED : '')})`.execute(db);
      } catch (err) {
        pending = together(pending, { seq, deliveries });
        if (stopped) return;
        log.warn({ err }, 'could not announce new events; trying again in a second');
        retry = setTimeout(() => {
          retry = undefined;
          start();
        }, RETRY_MS);
        retry.unref();
        return;
      }
    }
  };
  const start = () => {
    sending = sendAll().finally(() => (sending = undefined));
  };
  return {
    announce(written) {
      pending = together(pending, written);
      if (!sending && !retry) start();
    },
    /** Sends what is still to announce once more (a write that committed while closing), then stops. */
    async stop() {
      stopped = true;
      clearTimeout(retry);
      retry = undefined;
      await sending;
      if (pending) await sendAll();
    },
  };
}
