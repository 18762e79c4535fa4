import { CompiledQuery, Kysely, PostgresDialect, type KyselyConfig, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import type { PipelinedConnection, PipelinedStatement, PreparedStatementPool } from './prepared-pool.js';
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
const BEGIN_STATEMENT: PipelinedStatement = { text: BEGIN.sql, values: [] };
const COMMIT_STATEMENT: PipelinedStatement = { text: COMMIT.sql, values: [] };

// Connections' transactions on the wire, by their bound Kysely (`commitWithNextStatement`, `holdNextStatement`).
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
 * A statement held back (`holdNextStatement`) to go out with the one after it, and the check
 * on its answer that the statements after it wait for.
 */
export interface HeldStatement {
  /** Settles once the statement to hold has come (it is held, not sent). */
  readonly arrived: Promise<void>;
  /**
   * What the statements sent with or after the held one wait for before they answer: no
   * statement's answer reaches its caller, and no COMMIT goes out, until `check` has settled;
   * when it rejects, they fail with its error (and the transaction rolls back).
   */
  checkedBy(check: Promise<unknown>): void;
  /** Sends the held statement now if it has not gone out yet, and settles as `check` does. */
  settle(): Promise<void>;
}

/**
 * Holds the next statement of `db`'s transaction back, to go out in one write with the
 * statement after it (one round trip less), whose answer then waits for `checkedBy`'s check of
 * the held statement's answer: so the statement after it runs in Postgres before the held
 * one is answered, but its answer is handed over only once the check has passed, and the
 * transaction commits only then. Undefined (nothing held) when `db` is not a pool's bound
 * transaction.
 */
export function holdNextStatement(db: Kysely<Database>): HeldStatement | undefined {
  return wires.get(db)?.holdNext();
}

interface Held {
  text: string;
  values: readonly unknown[];
  resolve(result: QueryResult<unknown>): void;
  reject(err: unknown): void;
}

/**
 * A write transaction as its statements go out on one connection: BEGIN waits to go out with
 * the first statement and, when asked (`commitWithNext`), COMMIT with the last, each in the
 * same write (`queryAll`); a held statement (`holdNext`) waits for the one after it. A
 * transaction that ran no statement sends nothing. The statements are logged where kysely
 * logs them (BEGIN first, COMMIT last), whichever write took them.
 */
class WireTransaction {
  /** BEGIN asked for and not sent yet. */
  #beginPending = false;
  #commitNext = false;
  /** COMMIT went out with the last statement, and was answered. */
  #committed = false;
  /** The next statement is to be held (`holdNext`), and is told here when it comes. */
  #holdNext: (() => void) | undefined;
  /** The statement held back, not sent yet. */
  #held: Held | undefined;
  /** What every answer after a held statement's waits for (`HeldStatement.checkedBy`). */
  #check: Promise<unknown> | undefined;

  constructor(private readonly client: PipelinedConnection) {}

  async query(text: string, values: readonly unknown[]): Promise<QueryResult<unknown>> {
    if (text === BEGIN.sql) {
      this.#beginPending = true;
      this.#commitNext = false;
      this.#committed = false;
      this.#holdNext = undefined;
      this.#held = undefined;
      this.#check = undefined;
      return NOTHING;
    }
    if (text === COMMIT.sql) return this.#commit();
    if (text === ROLLBACK.sql) return this.#rollback();
    if (this.#committed) throw new Error('a statement after its transaction committed');
    if (this.#holdNext) {
      const arrived = this.#holdNext;
      this.#holdNext = undefined;
      return new Promise((resolve, reject) => {
        this.#held = { text, values, resolve, reject };
        arrived();
      });
    }
    const commit = this.#commitNext;
    this.#commitNext = false;
    // COMMIT never goes out in the same write as a held statement whose answer is unchecked.
    if (this.#held) {
      if (!commit) return (await this.#sendHeld({ text, values }))!;
      await this.#sendHeld();
    } else if (this.#check) {
      // The held statement went out: the statements after it go out once its check has passed.
      await this.#check;
    }
    const begin = this.#beginPending;
    this.#beginPending = false;
    if (!begin && !commit) return this.client.query(text, values);
    const statements = [...(begin ? [BEGIN_STATEMENT] : []), { text, values }, ...(commit ? [COMMIT_STATEMENT] : [])];
    return this.#answer(await this.client.queryAll(statements), begin ? 1 : 0, commit);
  }

  /**
   * Sends the held statement (with BEGIN, if pending), and `next` behind it in the same write:
   * the held statement hears its own answer, then the check on it is awaited before `next`'s
   * answer (or failure) is handed over; the check's failure comes first.
   */
  async #sendHeld(next?: PipelinedStatement): Promise<QueryResult<unknown> | undefined> {
    const held = this.#held!;
    const begin = this.#beginPending;
    this.#held = undefined;
    this.#beginPending = false;
    let settled: PromiseSettledResult<QueryResult<unknown>>[];
    try {
      settled = await this.client.querySettled([...(begin ? [BEGIN_STATEMENT] : []), held, ...(next ? [next] : [])]);
    } catch (err) {
      held.reject(err);
      throw err;
    }
    // Its own outcome, or BEGIN's failure.
    const outcome = begin && settled[0]!.status === 'fulfilled' ? settled[1]! : settled[0]!;
    if (outcome.status === 'fulfilled') held.resolve(outcome.value);
    else held.reject(outcome.reason);
    if (this.#check) await this.#check;
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return next && (settled.at(-1) as PromiseFulfilledResult<QueryResult<unknown>>).value;
  }

  /** The answer of the statement at `index` of one write's `results`, once COMMIT (the last, when `commit`) has answered as such. */
  #answer(results: QueryResult<unknown>[], index: number, commit: boolean): QueryResult<unknown> {
    if (commit) {
      // A COMMIT in a failed transaction answers ROLLBACK (its statement's failure was thrown above).
      if ((results.at(-1)?.command as string | undefined) !== 'COMMIT') throw new Error('the transaction was rolled back instead of committed');
      this.#committed = true;
    }
    return results[index]!;
  }

  commitWithNext(): void {
    this.#commitNext = true;
  }

  holdNext(): HeldStatement {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    this.#holdNext = arrived;
    return {
      arrived: arrival,
      checkedBy: (check) => {
        this.#check = check;
      },
      settle: async () => {
        if (this.#held) await this.#sendHeld();
        if (this.#check) await this.#check;
      },
    };
  }

  async #commit(): Promise<QueryResult<unknown>> {
    if (this.#held) await this.#sendHeld();
    if (this.#check) await this.#check;
    const nothingSent = this.#beginPending || this.#committed;
    this.#beginPending = false;
    this.#committed = false;
    return nothingSent ? NOTHING : this.client.query(COMMIT.sql, []);
  }

  async #rollback(): Promise<QueryResult<unknown>> {
    // A held statement never sent fails; its check then fails too (whoever awaits it hears why).
    this.#held?.reject(new Error('the transaction rolled back before its held statement went out'));
    this.#held = undefined;
    this.#holdNext = undefined;
    this.#check = undefined;
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
