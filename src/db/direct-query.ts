import type { CompiledQuery, Kysely, KyselyConfig, LogEvent } from 'kysely';
import type { Database } from './schema.js';

/** Runs one compiled statement on a pool's connection of its own and answers its rows. */
export type DirectRunner = (query: CompiledQuery) => Promise<unknown[]>;

// Keyed on the root Kysely of a pool: a transaction is another instance, and finds nothing.
const runners = new WeakMap<object, DirectRunner>();

/**
 * Lets reads on `db` itself (not in a transaction) skip kysely's executor: its connection
 * provider, logging wrapper and result mapping are several promises and a few µs per
 * statement, a measurable share of a simple read (profiled on the bench). `QueryTemplate`
 * uses it; everything else goes through kysely as before.
 */
export function runDirectly(db: Kysely<Database>, runner: DirectRunner): void {
  runners.set(db, runner);
}

/** The direct runner of `db`, when it is a pool's root Kysely that has one. */
export function directRunner(db: Kysely<Database>): DirectRunner | undefined {
  return runners.get(db);
}

/**
 * `run` with kysely's query log around it, the same events kysely sends (tests record the
 * statements an operation runs from them).
 */
function withQueryLog(run: DirectRunner, log: (event: LogEvent) => void | Promise<void>): DirectRunner {
  return async (query) => {
    const start = performance.now();
    try {
      const rows = await run(query);
      await log({ level: 'query', query, queryDurationMillis: performance.now() - start });
      return rows;
    } catch (error) {
      await log({ level: 'error', error, query, queryDurationMillis: performance.now() - start });
      throw error;
    }
  };
}

/**
 * Lets `db` run its reads with `run`, logged as kysely logs (`withQueryLog`), unless the log
 * is given as levels: kysely's own console logger prints those, so they stay on kysely.
 */
export function runDirectlyLogged(db: Kysely<Database>, run: DirectRunner, log: KyselyConfig['log']): void {
  if (typeof log !== 'object') runDirectly(db, log ? withQueryLog(run, log) : run);
}
