import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../domain/context.js';
import { eventConditions, matches, resolveFilter, type ResolvedFilter } from '../domain/event-list.js';
import { EVENT_BATCH, isAfter, liveFrom, positionOf, readyEvents, type EventFeed, type EventPosition } from '../domain/event-feed.js';
import { presentEvent, seqOf, type EventRow } from '../domain/events.js';
import { requireScope } from '../domain/permissions.js';
import { streamEventsOp } from '../operations/events.js';
import { validateInput } from '../operations/input-validation.js';
import type { Runtime } from '../operations/execute.js';
import { callerOf } from './routes.js';
import type { StreamCallers } from './stream-callers.js';

export const EVENT_STREAM_PATH = '/v1/events/stream';

/** A comment line is sent when nothing else was for this long (contract §10). */
export const KEEP_ALIVE_MS = 15_000;

/** A client this far behind in reading is let go: it reconnects with Last-Event-ID and catches up from the table. */
const MAX_UNREAD_BYTES = 1024 * 1024;

export interface EventStreamDeps {
  runtime: Runtime;
  feed: EventFeed;
  /** Reads each stream's caller again when tokens, members or sessions change. */
  callers: StreamCallers;
  keepAliveMs?: number;
}

/**
 * Frames already made, by row: the feed hands the same row objects to every open stream, so a
 * row is presented and serialised once per process, not once per stream (a thousand streams
 * made a thousand copies of each event's JSON).
 */
const frames = new WeakMap<EventRow, string>();

/** One event as Server-Sent Events lines. */
function frame(row: EventRow): string {
  let text = frames.get(row);
  if (text === undefined) {
    const event = presentEvent(row);
    text = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(row, text);
  }
  return text;
}

/**
 * `GET /v1/events/stream` (contract §10): the caller's events as Server-Sent Events, with
 * `listEvents`' filters and visibility, bearer token or session. With `Last-Event-ID` it first
 * sends every later event still kept, from the table, then live ones from the process's feed
 * (buffered meanwhile, so none is lost or repeated); an id unknown or no longer kept starts
 * with `event: reset` (`data: {}`: refetch), then live. A comment line keeps a silent stream
 * open; the idle bound of the connection does not apply to it (it has its answer under way).
 */
export function registerEventStream(app: FastifyInstance, deps: EventStreamDeps): void {
  const keepAliveMs = deps.keepAliveMs ?? KEEP_ALIVE_MS;
  app.get(EVENT_STREAM_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    let principal = callerOf(request);
    requireScope(principal, 'read');
    const filter = validateInput(streamEventsOp, { query: request.query }) as Parameters<typeof resolveFilter>[1];
    const ctx: Ctx = { db: deps.runtime.db, clock: deps.runtime.clock, principal };
    const resolved = await resolveFilter(ctx, filter);
    const lastEventId = request.headers['last-event-id'];
    const resumeFrom = typeof lastEventId === 'string' && lastEventId !== '' ? await keptPosition(ctx, lastEventId) : undefined;

    const res = reply.hijack().raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    request.raw.socket.setTimeout(0);

    let open = true;
    // Until it knows where live events start (and, resuming, has caught up from the table),
    // the stream keeps what the feed hands it, and sends it after.
    let waiting: EventRow[] | undefined = [];
    // The last event handed over (or skipped by the filter), in commit order.
    let last: EventPosition = { xid: '0', seq: '0' };
    const keepAlive = setTimeout(() => write(': keep-alive\n\n'), keepAliveMs);
    const write = (text: string) => {
      if (!open) return;
      res.write(text);
      keepAlive.refresh();
      if (res.writableLength > MAX_UNREAD_BYTES) close();
    };
    const send = (rows: readonly EventRow[]) => {
      for (const row of rows) {
        if (!isAfter(row, last)) continue;
        last = positionOf(row);
        if (matches(row, principal, resolved)) write(frame(row));
      }
    };
    const subscription = deps.feed.subscribe({
      deliver(rows) {
        if (waiting) waiting.push(...rows);
        else send(rows);
      },
      end: () => close(),
    });
    // Tokens, members or sessions changed (here, or in another process: the auth NOTIFY): the
    // caller is read again, one read at a time, and a stream whose credential no longer holds
    // (a revoked token, an ended session, a removed member) ends, its reconnect answered 401.
    let checking = false;
    let again = false;
    const recheck = () => {
      if (!open) return;
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      deps.callers
        .confirm(principal)
        .then(
          (now) => {
            principal = { ...principal, role: now.role, scopes: now.scopes };
          },
          () => endedCredential(),
        )
        .finally(() => {
          checking = false;
          if (again) {
            again = false;
            recheck();
          }
        });
    };
    // What was committed up to the end of the credential (its own `token.revoked`, say) is sent, then the stream ends.
    const endedCredential = () => {
      if (!open) return;
      if (waiting) return close();
      catchUp(ctx, resolved, last, send, () => open).then(close, close);
    };
    const unwatch = deps.callers.watch(recheck);
    const close = () => {
      if (!open) return;
      open = false;
      clearTimeout(keepAlive);
      subscription.unsubscribe();
      unwatch();
      res.end();
    };
    request.raw.on('close', close);
    res.on('error', close);

    try {
      // Live from now: the feed reads from a position no later than this (it is read first),
      // so it hands over every event still to come; the ones before, the stream skips.
      await subscription.from;
      last = await liveFrom(deps.runtime.db);
      write(': connected\n\n');
      if (resumeFrom === 'reset') write('event: reset\ndata: {}\n\n');
      else if (resumeFrom !== undefined) {
        last = resumeFrom;
        await catchUp(ctx, resolved, resumeFrom, send, () => open);
      }
    } catch (err) {
      request.log.warn({ err: (err as Error).message }, 'event stream could not start; the client reconnects');
      close();
    }
    const queued = waiting;
    waiting = undefined;
    send(queued);
  });
}

/** The position a Last-Event-ID resumes after (its event's `(xid, seq)`), or `reset` when it is none of ours or no longer kept. */
async function keptPosition(ctx: Ctx, id: string): Promise<EventPosition | 'reset'> {
  const seq = seqOf(id);
  if (seq === undefined) return 'reset';
  const row = await ctx.db.selectFrom('events').select(['xid', 'seq']).where('org_id', '=', ctx.principal.orgId).where('seq', '=', seq).executeTakeFirst();
  return row ? positionOf(row) : 'reset';
}

/**
 * Sends every kept event after `position` that the stream selects, in commit order, in
 * batches, as far as no transaction still running can precede them; the feed hands over the
 * rest (the stream skips what it already sent).
 */
async function catchUp(ctx: Ctx, filter: ResolvedFilter, position: EventPosition, send: (rows: EventRow[]) => void, open: () => boolean): Promise<void> {
  const where = eventConditions(ctx.principal, filter);
  let from = position;
  while (open()) {
    const { rows, heldBack } = await readyEvents(ctx.db, from, EVENT_BATCH, where);
    if (rows.length === 0) return;
    send(rows);
    from = positionOf(rows[rows.length - 1]!);
    if (heldBack || rows.length < EVENT_BATCH) return;
  }
}
