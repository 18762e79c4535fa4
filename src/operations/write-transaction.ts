import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { announceAuthChange } from '../db/auth-notifications.js';
import type { Database } from '../db/schema.js';
import { together, type EventsWritten } from '../db/event-announcer.js';
import { isStalePlan, isTransientConflict } from '../db/errors.js';
import { transactionRunner, type TransactionRunner } from '../db/bound-transaction.js';
import type { Runtime } from './runtime.js';

/** Attempts of one write when Postgres reports a deadlock or serialization failure. */
export const CONFLICT_ATTEMPTS = 4;

export interface WriteScope {
  /**
   * The write changes tokens or members: tells every process (a NOTIFY that Postgres
   * delivers on commit, never for a rollback), and this process's cache after the commit.
   */
  authChanged(): Promise<void>;
  /**
   * Takes what the write's events statement recorded, announced after the commit
   * (`Runtime.eventsCommitted`); undefined when the process does not announce, and the
   * statement notifies itself.
   */
  eventsWritten: ((written: EventsWritten) => void) | undefined;
}

/**
 * Runs `work` in a transaction of its own. A deadlock (40P01) or serialization failure
 * (40001) rolls the whole transaction back, idempotency record included, so it runs again
 * from the start, up to CONFLICT_ATTEMPTS in all, after a short random pause; a statement
 * whose prepared plan another process's schema change made stale (0A000) runs again once.
 * What still fails is thrown (answered 503 with Retry-After); nothing was applied.
 */
export async function writeTransaction<T>(rt: Runtime, work: (trx: Kysely<Database>, scope: WriteScope) => Promise<T>): Promise<T> {
  let conflicts = 0;
  let stalePlans = 0;
  for (;;) {
    let changedAuth = false;
    let written: EventsWritten | undefined;
    const announce = rt.eventsCommitted;
    try {
      const result = await transact(rt.db)((trx) =>
        work(trx, {
          async authChanged() {
            if (!changedAuth) await announceAuthChange(trx);
            changedAuth = true;
          },
          eventsWritten: announce && ((w) => (written = together(written, w))),
        }),
      );
      if (changedAuth) rt.afterCommit?.({ changesAuth: true });
      if (written && announce) announce(written);
      return result;
    } catch (err) {
      if (isTransientConflict(err) && ++conflicts < CONFLICT_ATTEMPTS) {
        // Spread the retries of the transactions that collided, so they do not collide again.
        await sleep(Math.round(Math.random() * 20 * conflicts));
        continue;
      }
      if (isStalePlan(err) && ++stalePlans === 1) continue;
      throw err;
    }
  }
}

/** The pool's own transaction runner (`boundTransactions`), else kysely's (the embedded database). */
function transact(db: Kysely<Database>): TransactionRunner {
  return transactionRunner(db) ?? ((work) => db.transaction().execute(work));
}
