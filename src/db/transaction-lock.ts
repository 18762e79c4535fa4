import { sql } from 'kysely';

/**
 * A transaction-level advisory lock on `name`, taken without waiting: true when this
 * transaction holds it (until it ends), false when another does. One expression, so a
 * statement that reads something else can take it too (one round trip less).
 */
export function transactionLock(name: string) {
  return sql<boolean>`pg_try_advisory_xact_lock(hashtextextended(${name}, 0))`;
}
