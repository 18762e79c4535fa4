import { isDatabaseUnavailable, isDataException, isStalePlan, isTransientConflict, uniqueViolation } from '../db/errors.js';

/**
 * What a failure of the database means to whoever asked. The faces' mappings of errors (the
 * HTTP envelope, Slack's replies) read it here and never SQLSTATE codes: those belong to the
 * pool (src/db/errors.ts).
 *
 * - `invalid_value`: a value the request carried cannot be stored or compared (class 22);
 * - `unavailable`: Postgres cannot serve now (down, cut off, a statement timed out): retry later;
 * - `busy`: a conflict that outlasted the write's own retries: nothing was applied;
 * - `duplicate`: a unique key refused a row that is already there.
 */
export type DatabaseFailure = 'invalid_value' | 'unavailable' | 'busy' | 'duplicate';

/** The meaning of `err` when it is a failure of the database, else undefined. */
export function databaseFailure(err: unknown): DatabaseFailure | undefined {
  if (isDataException(err)) return 'invalid_value';
  if (isDatabaseUnavailable(err)) return 'unavailable';
  if (isTransientConflict(err) || isStalePlan(err)) return 'busy';
  if (uniqueViolation(err) !== undefined) return 'duplicate';
  return undefined;
}
