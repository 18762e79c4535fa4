import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { DatabaseTimeout, isConnectionLost, isStalePlan } from './errors.js';

// Statements longer than this (bulk inserts with many rows) are not worth a cached plan.
const MAX_PREPARED_TEXT = 4_000;

/**
 * The pg Pool as kysely's PostgresDialect drives it, with every parameterised statement
 * sent as a named prepared statement: each connection parses and plans a query shape once
 * and then only binds, instead of planning on every request (planning was most of the
 * database time of a simple read on the bench). Statement names are the hash of their text,
 * so the same shape maps to the same statement on every connection.
 *
 * Three faults are handled here: a checked-out connection that dies or stops answering (see
 * `CheckedOutClient`), and a plan made stale by another process's schema change (see
 * `StatementNames`).
 */
export class PreparedStatementPool implements PostgresPool {
  readonly #names = new StatementNames();
  // One wrapper per pg connection, for its life: kysely keys its own connection object on the
  // client it is handed, so a new wrapper per checkout would make it build a new one each time.
  readonly #wrappers = new WeakMap<pg.PoolClient, CheckedOutClient>();
  readonly #watchdog: Watchdog | undefined;

  /** `answerMs`: how long a statement's answer is waited for before its connection is dropped (0: forever). */
  constructor(
    private readonly pool: pg.Pool,
    answerMs = 0,
  ) {
    this.#watchdog = answerMs > 0 ? new Watchdog(answerMs) : undefined;
  }

  async connect(): Promise<PostgresPoolClient> {
    return (await this.#checkOut()) as unknown as PostgresPoolClient;
  }

  /** A connection as `boundTransactions` drives it: kysely's `query` and `release`, and `queryAll`. */
  async connectPipelined(): Promise<PipelinedConnection> {
    return this.#checkOut();
  }

  /** One statement on a connection of its own, outside kysely (see `runDirectly`): its rows. */
  async rows(text: string, values: readonly unknown[]): Promise<unknown[]> {
    const client = await this.#checkOut();
    try {
      return (await client.query<unknown>(text, values)).rows;
    } finally {
      client.release();
    }
  }

  async #checkOut(): Promise<CheckedOutClient> {
    const client = await this.pool.connect();
    let wrapper = this.#wrappers.get(client);
    if (wrapper === undefined) {
      wrapper = new CheckedOutClient(client, this.#names, this.#watchdog);
      this.#wrappers.set(client, wrapper);
    }
    wrapper.checkOut();
    return wrapper;
  }

  async end(): Promise<void> {
    this.#watchdog?.stop();
    await this.pool.end();
  }
}

/**
 * Drops connections whose statement has waited `answerMs` for its answer. One timer for the
 * pool, ticking only while statements run, rather than a timer and a promise race per
 * statement (a write runs six or seven): a statement costs a clock read and a set entry. A
 * stalled statement fails between `answerMs` and `answerMs` + one tick.
 */
class Watchdog {
  readonly #running = new Set<CheckedOutClient>();
  readonly #tickMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly answerMs: number) {
    this.#tickMs = Math.max(10, Math.min(250, Math.floor(answerMs / 4)));
  }

  watch(client: CheckedOutClient): void {
    this.#running.add(client);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#sweep(), this.#tickMs);
      this.#timer.unref();
    }
  }

  unwatch(client: CheckedOutClient): void {
    this.#running.delete(client);
  }

  #sweep(): void {
    const now = Date.now();
    for (const client of this.#running) {
      if (now - client.startedAt >= this.answerMs) {
        this.#running.delete(client);
        client.expire(new DatabaseTimeout(this.answerMs));
      }
    }
    if (this.#running.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** A statement of `queryAll`. */
export interface PipelinedStatement {
  text: string;
  values: readonly unknown[];
}

/** A checked-out connection that can send several statements in one write (`CheckedOutClient`). */
export interface PipelinedConnection {
  query<R>(text: string, values: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  queryAll(statements: readonly PipelinedStatement[]): Promise<PostgresQueryResult<unknown>[]>;
  querySettled(statements: readonly PipelinedStatement[]): Promise<PromiseSettledResult<PostgresQueryResult<unknown>>[]>;
  inTransaction(): boolean;
  release(): void;
}

/**
 * A pg connection as kysely sees it. A connection can fail while checked out, between two
 * queries of a transaction (a terminated backend, a server restart): pg then emits 'error' on
 * the client, and with no listener that ends the process. The listener stays for the
 * connection's life; what it heard while checked out gives the client back as broken
 * (`release(err)`), so the pool closes it instead of handing it out again.
 *
 * A server can also stop answering without closing anything (a stalled server, a network
 * black hole): after `answerMs` the statement fails with `DatabaseTimeout` and the connection
 * is destroyed at once, since its state is unknown (the statement may still run, and its
 * answer would arrive as the answer of the next). Once broken, a connection's next
 * statements (kysely's ROLLBACK) fail at once with the same error instead of waiting again.
 */
class CheckedOutClient implements PipelinedConnection {
  #broken: Error | undefined;
  /** When the running statement was sent (Date.now), for the watchdog. */
  startedAt = 0;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: StatementNames,
    private readonly watchdog: Watchdog | undefined,
  ) {
    client.on('error', (err: Error) => {
      this.#broken ??= err;
    });
  }

  checkOut(): void {
    // An error heard while idle was the pool's to handle (it drops such clients).
    this.#broken = undefined;
  }

  /**
   * The statement had no answer in time: the connection is destroyed at once, since its
   * state is unknown (the statement may still run, and its answer would arrive as the answer
   * of the next). pg then fails the running statement, which `query` reports as `timeout`.
   */
  expire(timeout: DatabaseTimeout): void {
    this.#broken ??= timeout;
    // pg-pool ends a connection that timed out while connecting the same way.
    (this.client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  async query<R>(text: string, values: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    return (await this.#guarded(() => runStatement(this.client, this.names, text, values as unknown[]))) as PostgresQueryResult<R>;
  }

  /**
   * Sends `statements` in one write, each behind the other without waiting for its answer
   * (pg's pipeline mode: each with its own Sync, so Postgres answers each in turn), and answers
   * each one's outcome in order once all are answered (`queryAll`: their results, or the first
   * failure thrown); a lost connection is thrown. A statement after a failed one still runs
   * (inside a failed transaction it fails too, and a COMMIT there answers ROLLBACK). One
   * round trip where awaiting each would make one per statement.
   */
  async querySettled(statements: readonly PipelinedStatement[]): Promise<PromiseSettledResult<PostgresQueryResult<unknown>>[]> {
    return this.#guarded(async () => {
      // Swept first, so that nothing goes out between the statements.
      if (this.names.hasStale(this.client)) await this.names.dropStale(this.client);
      const stream = this.client.connection.stream;
      // Corked, each statement's messages wait for the others: one write for all of them.
      stream.cork();
      let sent: Promise<unknown>[];
      try {
        // Each is submitted before runStatement's first await (nothing is stale now), in order.
        sent = statements.map((s) => runStatement(this.client, this.names, s.text, [...s.values]));
      } finally {
        stream.uncork();
      }
      const settled = (await Promise.allSettled(sent)) as PromiseSettledResult<PostgresQueryResult<unknown>>[];
      // A lost connection fails them all, thrown as `query` throws it (a timeout as the timeout).
      const lost = settled.find((r) => r.status === 'rejected' && (this.#broken !== undefined || isConnectionLost(r.reason)));
      if (lost) throw (lost as PromiseRejectedResult).reason;
      return settled;
    });
  }

  async queryAll(statements: readonly PipelinedStatement[]): Promise<PostgresQueryResult<unknown>[]> {
    const settled = await this.querySettled(statements);
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((r) => (r as PromiseFulfilledResult<PostgresQueryResult<unknown>>).value);
  }

  /** Whether the connection is inside a transaction block (its last answer said so). */
  inTransaction(): boolean {
    return this.client.getTransactionStatus() !== 'I';
  }

  async #guarded<T>(run: () => Promise<T>): Promise<T> {
    if (this.#broken) throw this.#broken;
    const watchdog = this.watchdog;
    if (watchdog) {
      this.startedAt = Date.now();
      watchdog.watch(this);
    }
    try {
      return await run();
    } catch (err) {
      // Failed because the watchdog dropped the connection: say so, not "connection terminated".
      // (Set by the watchdog while awaiting: TypeScript narrowed it to undefined above.)
      const broken = this.#broken as Error | undefined;
      if (broken instanceof DatabaseTimeout) throw broken;
      if (isConnectionLost(err)) this.#broken ??= err as Error;
      throw err;
    } finally {
      watchdog?.unwatch(this);
    }
  }

  release(): void {
    this.client.release(this.#broken);
  }
}

// Names of the statement texts seen, so a text is hashed once, not on every query. Texts come
// from a bounded set of query shapes; the bound only guards against an unforeseen one.
const MAX_NAMES = 2_000;
const names = new Map<string, string>();

/** The statement name of a query text: `k` + its SHA-1 (the same on every connection), memoized. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES) names.clear();
    name = `k${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return name;
}

/** Runs one statement: parameterised ones as named prepared statements, re-prepared once after a stale plan. */
async function runStatement(client: pg.PoolClient, names: StatementNames, text: string, params: unknown[]): Promise<unknown> {
  // Checked before awaiting: almost always there is nothing to sweep, and no promise is made.
  if (names.hasStale(client)) await names.dropStale(client);
  if (params.length === 0 || text.length > MAX_PREPARED_TEXT) return client.query(text, params);
  const base = statementName(text);
  try {
    return await names.run(client, base, text, params);
  } catch (err) {
    if (!isStalePlan(err)) throw err;
    names.invalidate();
    // Inside a transaction the error aborted it: the caller runs the whole transaction again.
    if (client.getTransactionStatus() !== 'I') throw err;
    await names.dropStale(client);
    return names.run(client, base, text, params);
  }
}

interface ClientStatements {
  /** Statement names prepared on this connection, with their generation. */
  names: Map<string, number>;
  /** The generation this connection last deallocated up to. */
  swept: number;
}

/**
 * Statement names, per generation. Another process can change a table's columns under a
 * prepared plan ("cached plan must not change result type", 0A000), and then that statement
 * fails on every connection that prepared it. `invalidate` starts a new generation for the
 * whole pool: from then on every connection prepares its statements afresh under new names,
 * and deallocates the older ones as soon as it is outside a transaction.
 */
class StatementNames {
  #generation = 0;
  readonly #clients = new WeakMap<pg.PoolClient, ClientStatements>();

  #of(client: pg.PoolClient): ClientStatements {
    let mine = this.#clients.get(client);
    if (!mine) this.#clients.set(client, (mine = { names: new Map(), swept: this.#generation }));
    return mine;
  }

  /** Runs `text` as the statement `base` of the current generation. */
  async run(client: pg.PoolClient, base: string, text: string, values: unknown[]): Promise<unknown> {
    const generation = this.#generation;
    const name = generation === 0 ? base : `${base}_${generation}`;
    const result = await client.query({ name, text, values });
    this.#of(client).names.set(name, generation);
    return result;
  }

  invalidate(): void {
    this.#generation++;
  }

  /** Whether the client holds statements of an older generation that `dropStale` would sweep now. */
  hasStale(client: pg.PoolClient): boolean {
    const mine = this.#clients.get(client);
    return mine !== undefined && mine.swept !== this.#generation && client.getTransactionStatus() === 'I';
  }

  /** Deallocates the client's statements of older generations, when it is not inside a transaction. */
  async dropStale(client: pg.PoolClient): Promise<void> {
    const mine = this.#clients.get(client);
    if (!mine || !this.hasStale(client)) return;
    mine.swept = this.#generation;
    const stale = [...mine.names].filter(([, generation]) => generation < this.#generation).map(([name]) => name);
    if (stale.length === 0) return;
    for (const name of stale) mine.names.delete(name);
    // Names are `k` and base64url characters, safe inside double quotes. A failure here only
    // leaves plans unused (a lost connection fails the next query anyway).
    await client.query(stale.map((name) => `DEALLOCATE "${name}"`).join('; ')).catch(() => {});
  }
}
