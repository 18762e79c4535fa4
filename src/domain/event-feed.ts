import { sql, type ExpressionOrFactory, type Kysely, type SqlBool } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import type { EventRow } from './events.js';

/** Rows read at once by the feed and by a stream catching up. */
export const EVENT_BATCH = 500;

/** An open stream, as the feed sees it. */
export interface FeedSubscriber {
  /** New events, in `seq` order, every one committed since the last batch (unfiltered). */
  deliver(rows: readonly EventRow[]): void;
  /** The process is shutting down: end cleanly. */
  end(): void;
}

/**
 * Where a reader that has read `row` stands, as opaque text: what `eventsAfter` reads after.
 * Today an event's `seq`; the one place to change when readers key on more than `seq`.
 */
export function feedCursor(row: Pick<EventRow, 'seq'>): string {
  return String(row.seq);
}

/** Events after `seq`, in order, at most `limit`: the feed's reads and a stream's catch-up. */
export function eventsAfter(db: Kysely<Database>, seq: string, limit = EVENT_BATCH, where?: ExpressionOrFactory<Database, 'events', SqlBool>): Promise<EventRow[]> {
  let q = db.selectFrom('events').selectAll().where('seq', '>', sql<string>`cast(${seq} as bigint)`);
  if (where) q = q.where(where);
  return q.orderBy('seq').limit(limit).execute();
}

/** The `seq` of the last event committed (0 for none): a stream without Last-Event-ID starts after it. */
export async function lastCommitted(db: Kysely<Database>): Promise<string> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
  return row?.seq == null ? '0' : String(row.seq);
}

/**
 * The one reader of new events in a process: told that events were committed (the NOTIFY of
 * any process on the same Postgres, heard on one LISTEN connection; on PGlite, its own), it
 * reads every row after the last one it read, in batches by `seq`, and hands them to each
 * open stream, which filters them for its caller. Events commit in `seq` order (the events
 * lock), so reading after the last `seq` misses none; after a lost LISTEN connection, the
 * next read catches up from there.
 */
export class EventFeed {
  readonly #subscribers = new Set<FeedSubscriber>();
  #last: string | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /**
   * Reads from the last event committed now on: called before the process listens for new
   * events, so that the first one it hears of is not taken for one it had read.
   */
  async start(): Promise<void> {
    this.#last = await lastCommitted(this.db);
  }

  /** The `seq` of the last event read (from `start`, else from the first read). */
  async #lastRead(): Promise<string> {
    this.#last ??= await lastCommitted(this.db);
    return this.#last;
  }

  get open(): number {
    return this.#subscribers.size;
  }

  subscribe(subscriber: FeedSubscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /** Events were committed somewhere: read them (one read at a time; a poke during one reads again after it). */
  poke(): void {
    if (this.#closed) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = this.#read().finally(() => (this.#reading = undefined));
  }

  async #read(): Promise<void> {
    try {
      do {
        this.#again = false;
        let from = await this.#lastRead();
        for (;;) {
          const rows = await eventsAfter(this.db, from);
          if (rows.length === 0 || this.#closed) break;
          from = this.#last = rows[rows.length - 1]!.seq;
          for (const subscriber of this.#subscribers) subscriber.deliver(rows);
          if (rows.length < EVENT_BATCH) break;
        }
      } while (this.#again && !this.#closed);
    } catch (err) {
      // The database is away: read again in a second, from the last event read.
      this.log.warn({ err: (err as Error).message }, 'cannot read new events yet; retrying every second');
      clearTimeout(this.#retry);
      this.#retry = setTimeout(() => this.poke(), 1_000);
      this.#retry.unref();
    }
  }

  /** Ends every open stream (a shutdown's drain) and reads no more. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    for (const subscriber of [...this.#subscribers]) subscriber.end();
    this.#subscribers.clear();
  }
}
