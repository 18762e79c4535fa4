import type pg from 'pg';
import type { Logger } from 'pino';

/** How the listening connection is watched. */
export interface ListenTiming {
  /**
   * How long after each answer the listening connection is asked again (a repeated LISTEN,
   * which the server answers without doing anything). A connection lost in a network black
   * hole raises no error: without this the process would never learn that it went deaf.
   */
  heartbeatMs: number;
  /**
   * How long LISTEN, the heartbeat and UNLISTEN wait for their answer (a stalled server, a
   * network black hole): the listener then listens again on a new connection, and a shutdown
   * goes on.
   */
  answerMs: number;
}

/**
 * A dead listening connection is noticed within heartbeat + answer (15 s), well within the
 * cache's 60 s; from then on nothing is cached until a new connection listens.
 */
export const LISTEN_TIMING: ListenTiming = { heartbeatMs: 10_000, answerMs: 5_000 };

/** A statement with pg's own read timeout (which its typings leave out of QueryConfig). */
function bounded(text: string, ms: number): pg.QueryConfig {
  return { text, query_timeout: ms } as pg.QueryConfig;
}

/** What a listener is told: each notification's payload, and whether it hears them (false from the start, and while reconnecting). */
export interface ChannelListener {
  notified(payload: string): void;
  hearing(on: boolean): void;
}

/** The lines a listener logs: when its connection is lost, while it cannot listen yet, and when it listens again. */
export interface ListenWords {
  lost: string;
  waiting: string;
  again: string;
}

/**
 * Listens on `channel` on a connection of its own, watched (see `ListenTiming`) and listened
 * again on a new connection, every second, after it fails. Returns a `stop` function.
 */
export function listenOn(pool: pg.Pool, channel: string, sink: ChannelListener, log: Logger, timing: ListenTiming, words: ListenWords): { stop: () => Promise<void> } {
  let client: pg.PoolClient | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let beat: NodeJS.Timeout | undefined;
  // Failed attempts to listen since the last success, and whether this outage was logged.
  let failures = 0;
  let warned = false;

  /** Gives the listening client back exactly once, detached from our handlers. */
  const drop = (c: pg.PoolClient, broken: boolean) => {
    if (client === c) client = undefined;
    c.removeAllListeners('notification');
    c.removeAllListeners('error');
    // A late error on a client we already gave back must not throw (pg-pool refuses a double release).
    c.on('error', () => {});
    // Broken: pg-pool ends it, and pg destroys the socket at once when a statement is unanswered.
    c.release(broken);
  };

  /** The listening connection failed or stopped answering: deaf until another one listens. */
  const lost = (c: pg.PoolClient, err: Error) => {
    if (stopped || client !== c) return;
    clearTimeout(beat);
    beat = undefined;
    drop(c, true);
    // Anything may have changed while it was failing, and nothing is heard until it listens again.
    sink.hearing(false);
    log.warn({ err: err.message }, words.lost);
    warned = true;
    schedule();
  };

  /** Asks the listening connection for an answer `heartbeatMs` after its last one. */
  const heartbeat = (c: pg.PoolClient) => {
    beat = setTimeout(() => {
      beat = undefined;
      c.query(bounded(`LISTEN ${channel}`, timing.answerMs)).then(
        () => {
          if (!stopped && client === c) heartbeat(c);
        },
        (err: Error) => lost(c, err),
      );
    }, timing.heartbeatMs);
    beat.unref();
  };

  const listen = async () => {
    if (stopped) return;
    let c: pg.PoolClient | undefined;
    try {
      c = await pool.connect();
      const mine = c;
      mine.on('notification', (msg) => {
        if (msg.channel === channel) sink.notified(msg.payload ?? '');
      });
      mine.on('error', (err: Error) => {
        // Before LISTEN answered, its failure is handled below.
        if (client === mine) lost(mine, err);
      });
      await mine.query(bounded(`LISTEN ${channel}`, timing.answerMs));
      if (stopped) {
        drop(mine, false);
        return;
      }
      client = mine;
      // Whatever changed before this LISTEN (while reconnecting) was not heard: forget it all.
      sink.hearing(true);
      heartbeat(mine);
      if (warned) log.info({ failed_attempts: failures }, words.again);
      failures = 0;
      warned = false;
    } catch (err) {
      if (c && c.listenerCount('notification') > 0) drop(c, true);
      // Once per outage, not once a second: the attempts go on quietly (debug) until one succeeds.
      failures++;
      log[warned ? 'debug' : 'warn']({ err: (err as Error).message }, words.waiting);
      warned = true;
      schedule();
    }
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void listen();
    }, 1_000);
    retry.unref();
  };
  sink.hearing(false);
  void listen();

  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      clearTimeout(beat);
      if (client) {
        const c = client;
        client = undefined;
        try {
          await c.query(bounded(`UNLISTEN ${channel}`, timing.answerMs));
          drop(c, false);
        } catch {
          // Closing anyway; a connection that did not answer is not given back for reuse.
          drop(c, true);
        }
      }
    },
  };
}
