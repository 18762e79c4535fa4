import type { SqlMigration } from '../migration.js';

/**
 * `key_stored_meanwhile()`: fails its statement as a serialization failure (40001), so the
 * whole write runs again (`writeTransaction`) and then replays the record another request
 * committed meanwhile. The events statement calls it when it could not store the write's
 * idempotency record: the refusal is Postgres's own, so a COMMIT sent in the same write as
 * that statement (bound-transaction.ts) answers ROLLBACK instead of committing the write
 * without its record. Volatile, so Postgres never folds it into a plan ahead of the row.
 */
export const keyStoredMeanwhile: SqlMigration = {
  name: '0029-key-stored-meanwhile',
  up: [
    `create function key_stored_meanwhile() returns boolean language plpgsql volatile as $$
      begin
        raise exception 'A request with this Idempotency-Key committed meanwhile' using errcode = '40001';
      end
    $$`,
  ],
};
