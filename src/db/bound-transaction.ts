import { CompiledQuery, Kysely, PostgresDialect, type KyselyConfig, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import type { PipelinedConnection, PreparedStatementPool } from './prepared-pool.js';
import { directRunner, runDirectlyLogged } from './direct-query.js';
import type { Database } from './schema.js';

/** Runs `work` in a transaction of its own on one connection, committed when it returns. */
export type TransactionRunner = <T>(work: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;

// Keyed on the root Kysely of a pool, as `runDirectly`'s runners are.
const runners = new WeakMap<object, TransactionRunner>();

/** The write transactions of `db` run with `runner` (`writeTransaction` asks for it). */
export function transactDirectly(db: Kysely<Database>, runner: TransactionRunner): void {
  runners.set(db, runner);
}

/** The transaction runner of `db`, when it is a pool's root Kysely that has one. */
export function transactionRunner(db: Kysely<Database>): TransactionRunner | undefined {
  return runners.get(db);
}

/**
 * A Kysely bound to one checked-out connection, for the life of that connection: what a
 * transaction's statements run on. It says it is a transaction (a statement that would set
 * its own commit mode outside one leaves that to the caller), and starts no other.
 */
class BoundTransaction extends Kysely<Database> {
  override get isTransaction(): true {
    return true;
  }

  override transaction(): never {
    throw new Error('a transaction cannot start another');
  }

  override connection(): never {
    throw new Error('a transaction cannot take another connection');
  }
}

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

// Connections' transactions on the wire, by their bound Kysely (`commitWithNextStatement`).
const wires = new WeakMap<object, WireTransaction>();

/**
 * The next statement of `db`'s transaction is its last: COMMIT goes out with it, in the same
 * write, and the transaction has committed once it answers (one round trip less). Any
 * statement after it fails. Nothing, when `db` is not a pool's bound transaction (the
 * embedded database's transactions commit when their work returns, as before).
 */
export function commitWithNextStatement(db: Kysely<Database>): void {
  wires.get(db)?.commitWithNext();
}

/**
 * A write transaction as its statements go out on one connection: BEGIN waits to go out with
 * the first statement and, when asked (`commitWithNext`), COMMIT with the last, each in the
 * same write (`queryAll`). A transaction that ran no statement sends nothing. The statements
 * are logged where kysely logs them (BEGIN first, COMMIT last), whichever write took them.
 */
class WireTransaction {
  /** BEGIN asked for and not sent yet. */
  #beginPending = false;
  #commitNext = false;
  /** COMMIT went out with the last statement, and was answered. */
  #committed = false;

  constructor(private readonly client: PipelinedConnection) {}

  async query(text: string, values: readonly unknown[]): Promise<QueryResult<unknown>> {
    if (text === BEGIN.sql) {
      this.#beginPending = true;
      this.#commitNext = false;
      this.#committed = false;
      return NOTHING;
    }
    if (text === COMMIT.sql) return this.#commit();
    if (text === ROLLBACK.sql) return this.#rollback();
    if (this.#committed) throw new Error('a statement after its transaction committed');
    const begin = this.#beginPending;
    const commit = this.#commitNext;
    this.#beginPending = false;
    this.#commitNext = false;
    if (!begin && !commit) return this.client.query(text, values);
    const statements = [...(begin ? [{ text: BEGIN.sql, values: [] }] : []), { text, values }, ...(commit ? [{ text: COMMIT.sql, values: [] }] : [])];
    const results = await this.client.queryAll(statements);
    if (commit) {
      // A COMMIT in a failed transaction answers ROLLBACK (its statement's failure was thrown above).
      if ((results.at(-1)?.command as string | undefined) !== 'COMMIT') throw new Error('the transaction was rolled back instead of committed');
      this.#committed = true;
    }
    return results[begin ? 1 : 0]!;
  }

  commitWithNext(): void {
    this.#commitNext = true;
  }

  async #commit(): Promise<QueryResult<unknown>> {
    const nothingSent = this.#beginPending || this.#committed;
    this.#beginPending = false;
    this.#committed = false;
    return nothingSent ? NOTHING : this.client.query(COMMIT.sql, []);
  }

  async #rollback(): Promise<QueryResult<unknown>> {
    // Nothing begun, already committed, or already ended (a COMMIT that answered ROLLBACK): nothing to roll back.
    const open = !this.#beginPending && !this.#committed && this.client.inTransaction();
    this.#beginPending = false;
    this.#committed = false;
    return open ? this.client.query(ROLLBACK.sql, []) : NOTHING;
  }
}

type QueryResult<R> = PostgresQueryResult<R>;
const NOTHING: QueryResult<unknown> = { command: 'SELECT', rowCount: 0, rows: [] };

/**
 * Write transactions on `pool` without kysely's per-transaction machinery: a write checks out
 * a connection and gets the Kysely made once for that connection (kysely builds a new
 * transaction object, executor and connection provider for every transaction, and takes each
 * statement through them: a few µs per statement and more per transaction, on every write;
 * profiled on the writes bench). A `QueryTemplate` in it runs straight on the connection, as
 * it does on the pool. begin, then `work`, then commit, as `WireTransaction` sends them; a
 * failure anywhere rolls back (the rollback's own failure is dropped: the connection, if
 * broken, is dropped on release) and is thrown. Statements are logged as kysely logs them
 * (`config.log`).
 */
export function boundTransactions(pool: PreparedStatementPool, config: Omit<KyselyConfig, 'dialect'>): TransactionRunner {
  /** A connection's Kysely, and how its BEGIN, COMMIT and ROLLBACK are sent. */
  interface Bound {
    trx: Kysely<Database>;
    control: (query: CompiledQuery) => Promise<unknown>;
  }
  const bound = new WeakMap<PipelinedConnection, Bound>();
  const boundOf = (client: PipelinedConnection): Bound => {
    let b = bound.get(client);
    if (b === undefined) {
      const wire = new WireTransaction(client);
      // Released by the runner, once, after the commit or rollback: never by a statement.
      // (kysely's cursor overload of `query` is never used on it.)
      const held: PostgresPoolClient = { query: ((text: string, values: readonly unknown[]) => wire.query(text, values)) as PostgresPoolClient['query'], release: () => {} };
      const trx = new BoundTransaction({ ...config, dialect: new PostgresDialect({ pool: { connect: async () => held, end: async () => {} } }) });
      runDirectlyLogged(trx, async (query) => (await wire.query(query.sql, query.parameters)).rows, config.log);
      wires.set(trx, wire);
      // Straight to the connection, logged as kysely logs, unless the log is kysely's own (levels).
      b = { trx, control: directRunner(trx) ?? ((query) => trx.executeQuery(query)) };
      bound.set(client, b);
    }
    return b;
  };
  return async (work) => {
    const client = await pool.connectPipelined();
    try {
      const { trx, control } = boundOf(client);
      try {
        await control(BEGIN);
        const result = await work(trx);
        await control(COMMIT);
        return result;
      } catch (err) {
        await control(ROLLBACK).catch(() => {});
        throw err;
      }
    } finally {
      client.release();
    }
  };
}
