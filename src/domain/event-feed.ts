import { sql, type ExpressionOrFactory, type Kysely, type SqlBool } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { eventHorizon } from './event-horizon.js';
import type { EventRow } from './events.js';

/** Rows read at once by the feed and by a stream catching up. */
export const EVENT_BATCH = 500;

/**
 * Where a reader is in the events' commit order: the `(xid, seq)` of the last row it read
 * (migration 0022). A transaction's events share its `xid`; every later committed event has a
 * greater pair than one already read, because rows are read only once every older transaction
 * has ended (`readyEvents`).
 */
export interface EventPosition {
  xid: string;
  seq: string;
}

export const positionOf = (row: Pick<EventRow, 'xid' | 'seq'>): EventPosition => ({ xid: String(row.xid), seq: String(row.seq) });

/** Whether `row` comes after `position` in commit order. */
export function isAfter(row: Pick<EventRow, 'xid' | 'seq'>, position: EventPosition): boolean {
  const xid = BigInt(row.xid);
  const at = BigInt(position.xid);
  return xid > at || (xid === at && BigInt(row.seq) > BigInt(position.seq));
}

/** An open stream, as the feed sees it. */
export interface FeedSubscriber {
  /** New events, in commit order, every one committed since the last batch (unfiltered). */
  deliver(rows: readonly EventRow[]): void;
  /** The process is shutting down: end cleanly. */
  end(): void;
}

/** A read of the events after a position: the rows ready to hand out, and whether later ones wait for an older transaction. */
export interface ReadyEvents {
  rows: EventRow[];
  /** Committed rows after these wait until an older transaction still running ends: read again shortly. */
  heldBack: boolean;
}

/**
 * Events after `position` in commit order, at most `limit`, that no transaction still running
 * can precede: the feed's reads and a stream's catch-up. Two statements: the horizon
 * (`eventHorizon`), then
 *
 *   select *, xid < $horizon as ready from events
 *   where (xid, seq) > ($xid, $seq) [and …] order by xid, seq limit $limit
 *
 * Rows with `ready` false (an older transaction is still running, and may yet commit events
 * that come before them) sort after every ready one; they are left for the next read.
 */
export async function readyEvents(db: Kysely<Database>, position: EventPosition, limit = EVENT_BATCH, where?: ExpressionOrFactory<Database, 'events', SqlBool>): Promise<ReadyEvents> {
  const horizon = await eventHorizon(db);
  let q = db
    .selectFrom('events')
    .selectAll()
    .select(sql<boolean>`xid < cast(${horizon} as xid8)`.as('ready'))
    .where(sql<boolean>`(xid, seq) > (cast(${position.xid} as xid8), cast(${position.seq} as bigint))`);
  if (where) q = q.where(where);
  const found = await q.orderBy('xid').orderBy('seq').limit(limit).execute();
  const ready = found.findIndex((r) => !r.ready);
  const rows = (ready < 0 ? found : found.slice(0, ready)).map(({ ready: _ready, ...row }) => row);
  return { rows, heldBack: ready >= 0 };
}

/**
 * Where live events start now: every transaction older than the oldest still running has
 * ended, so every event from that transaction on is still to come (a few committed just
 * before may come too; a reader skips what it already has by position).
 */
export async function liveFrom(db: Kysely<Database>): Promise<EventPosition> {
  return { xid: await eventHorizon(db), seq: '0' };
}

/** Pauses before reading again while rows are held back by an older transaction (ms; doubling, up to the last). */
const HELD_BACK_DELAYS = [5, 10, 20, 50, 100, 200, 500, 1_000];

/**
 * The one reader of new events in a process: told that events were committed (the NOTIFY of
 * any process on the same Postgres, heard on one LISTEN connection; on PGlite, its own), it
 * reads every row after the last one it read, in batches in commit order (`readyEvents`), and
 * hands them to each open stream, which filters them for its caller. A row committed while an
 * older transaction still runs is held back until that one ends (read again after a short
 * pause, since an older transaction that records no event sends no NOTIFY); after a lost
 * LISTEN connection, the next read catches up from the last row read.
 *
 * With no stream open it reads nothing and keeps no position (most processes, most of the
 * time: a read per NOTIFY was a twentieth of a write's cost on the writes bench); the first
 * stream to open takes the start of live events then (`liveFrom`), and the feed reads on from there.
 */
export class EventFeed {
  readonly #subscribers = new Set<FeedSubscriber>();
  #last: EventPosition | undefined;
  /** The start of live events being read for the first stream (one read, however many open at once). */
  #starting: Promise<EventPosition> | undefined;
  /** Counts the times the feed forgot its position, so a start read before the last one is not taken. */
  #idleSpells = 0;
  #heldBack = 0;
  #reading: Promise<void> | undefined;
  #again = false;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** The position of the last event read, else (no stream was open) the start of live events now. */
  #lastRead(): Promise<EventPosition> {
    if (this.#last) return Promise.resolve(this.#last);
    const spell = this.#idleSpells;
    this.#starting ??= liveFrom(this.db).then(
      (from) => {
        if (spell === this.#idleSpells) {
          this.#last ??= from;
          this.#starting = undefined;
        }
        return this.#last ?? from;
      },
      (err: unknown) => {
        if (spell === this.#idleSpells) this.#starting = undefined;
        throw err;
      },
    );
    return this.#starting;
  }

  /** No stream is open: the position is let go, and the next stream starts live from its own moment. */
  #forget(): void {
    this.#idleSpells++;
    this.#last = undefined;
    this.#starting = undefined;
    this.#heldBack = 0;
    clearTimeout(this.#retry);
  }

  get open(): number {
    return this.#subscribers.size;
  }

  /**
   * Hands `subscriber` every event after the position `from` resolves to (`from` fails when the
   * database cannot be read; the stream then ends), until `unsubscribe`.
   */
  subscribe(subscriber: FeedSubscriber): { from: Promise<EventPosition>; unsubscribe(): void } {
    this.#subscribers.add(subscriber);
    return { from: this.#lastRead(), unsubscribe: () => void this.#subscribers.delete(subscriber) };
  }

  /** Events were committed somewhere: read them (one read at a time; a poke during one reads again after it). */
  poke(): void {
    if (this.#closed) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    if (this.#subscribers.size === 0) {
      if (this.#last || this.#starting) this.#forget();
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
          const { rows, heldBack } = await readyEvents(this.db, from);
          if (this.#closed) break;
          if (rows.length > 0) {
            from = this.#last = positionOf(rows[rows.length - 1]!);
            for (const subscriber of this.#subscribers) subscriber.deliver(rows);
          }
          if (heldBack) this.#readAgainSoon(rows.length > 0);
          else this.#heldBack = 0;
          if (heldBack || rows.length < EVENT_BATCH) break;
        }
      } while (this.#again && !this.#closed && this.#subscribers.size > 0);
    } catch (err) {
      // The database is away: read again in a second, from the last event read.
      this.log.warn({ err: (err as Error).message }, 'cannot read new events yet; retrying every second');
      clearTimeout(this.#retry);
      this.#retry = setTimeout(() => this.poke(), 1_000);
      this.#retry.unref();
    }
  }

  /** Rows wait for an older transaction: read again after a pause that grows while nothing moves. */
  #readAgainSoon(moved: boolean): void {
    if (moved) this.#heldBack = 0;
    const delay = HELD_BACK_DELAYS[Math.min(this.#heldBack++, HELD_BACK_DELAYS.length - 1)]!;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => this.poke(), delay);
    this.#retry.unref();
  }

  /** Ends every open stream (a shutdown's drain) and reads no more. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    for (const subscriber of [...this.#subscribers]) subscriber.end();
    this.#subscribers.clear();
  }
}

/**
 * Where a reader that has read `row` stands, as opaque text (`<xid>:<seq>`): what a consumer
 * of the events (notifications, channel posts) stores, and `eventsAfter` reads after.
 */
export function feedCursor(row: Pick<EventRow, 'xid' | 'seq'>): string {
  return `${String(row.xid)}:${String(row.seq)}`;
}

/** The position a stored cursor names (a bare `seq`, as very first cursors were, counts as xid 0). */
export function cursorPosition(cursor: string): EventPosition {
  const [xid, seq] = cursor.split(':');
  return seq === undefined ? { xid: '0', seq: xid ?? '0' } : { xid: xid ?? '0', seq };
}

/** Where a new consumer starts: live events from now on (`liveFrom`), as a cursor. */
export async function startCursor(db: Kysely<Database>): Promise<string> {
  const from = await liveFrom(db);
  return `${from.xid}:${from.seq}`;
}

/** The events ready after `cursor`, in commit order, at most `limit` (`readyEvents`' rows). */
export async function eventsAfter(db: Kysely<Database>, cursor: string, limit = EVENT_BATCH, where?: ExpressionOrFactory<Database, 'events', SqlBool>): Promise<EventRow[]> {
  return (await readyEvents(db, cursorPosition(cursor), limit, where)).rows;
}
