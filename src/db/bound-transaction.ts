import { CompiledQuery, Kysely, PostgresDialect, type KyselyConfig, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { runDirectlyLogged } from './direct-query.js';
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

/**
 * Write transactions on `pool` without kysely's per-transaction machinery: a write checks out
 * a connection and gets the Kysely made once for that connection (kysely builds a new
 * transaction object, executor and connection provider for every transaction, and takes each
 * statement through them: a few µs per statement and more per transaction, on every write;
 * profiled on the writes bench). A `QueryTemplate` in it runs straight on the connection, as
 * it does on the pool. begin, then `work`, then commit; a failure anywhere rolls back (the
 * rollback's own failure is dropped: the connection, if broken, is dropped on release) and is
 * thrown. Statements are logged as kysely logs them (`config.log`).
 */
export function boundTransactions(pool: PostgresPool, config: Omit<KyselyConfig, 'dialect'>): TransactionRunner {
  const bound = new WeakMap<PostgresPoolClient, Kysely<Database>>();
  const trxOf = (client: PostgresPoolClient): Kysely<Database> => {
    let trx = bound.get(client);
    if (trx === undefined) {
      // Released by the runner, once, after the commit or rollback: never by a statement.
      const held: PostgresPoolClient = { query: client.query.bind(client), release: () => {} };
      trx = new BoundTransaction({ ...config, dialect: new PostgresDialect({ pool: { connect: async () => held, end: async () => {} } }) });
      runDirectlyLogged(trx, async (query) => (await client.query(query.sql, [...query.parameters])).rows, config.log);
      bound.set(client, trx);
    }
    return trx;
  };
  return async (work) => {
    const client = await pool.connect();
    try {
      const trx = trxOf(client);
      try {
        await trx.executeQuery(BEGIN);
        const result = await work(trx);
        await trx.executeQuery(COMMIT);
        return result;
      } catch (err) {
        await trx.executeQuery(ROLLBACK).catch(() => {});
        throw err;
      }
    } finally {
      client.release();
    }
  };
}
