/** Reading Postgres errors (SQLSTATE codes) in one place. */

function sqlState(err: unknown): string {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/** The constraint (or unique index) a Postgres unique violation (23505) names, else undefined. */
export function uniqueViolation(err: unknown): string | undefined {
  const e = err as { code?: unknown; constraint?: unknown };
  if (e?.code !== '23505') return undefined;
  return typeof e.constraint === 'string' ? e.constraint : '';
}

/** A data exception (class 22): a value Postgres cannot take, such as a NUL in text or JSON. */
export function isDataException(err: unknown): boolean {
  return sqlState(err).startsWith('22');
}

/**
 * A deadlock (40P01) or serialization failure (40001): Postgres rolled the transaction back,
 * and running the whole transaction again may well succeed.
 */
export function isTransientConflict(err: unknown): boolean {
  const code = sqlState(err);
  return code === '40P01' || code === '40001';
}

/**
 * A write that met another transaction's commit it could not see when it started (an
 * idempotency key stored meanwhile): as a serialization failure (40001), the whole
 * transaction rolls back and runs again, and then sees that commit.
 */
export class ConcurrentCommit extends Error {
  override name = 'ConcurrentCommit';
  readonly code = '40001';

  constructor(what: string) {
    super(`${what} was committed by another transaction meanwhile`);
  }
}

/**
 * "cached plan must not change result type" (0A000): a named prepared statement planned
 * before another process changed the table's columns. Re-preparing it fixes it.
 */
export function isStalePlan(err: unknown): boolean {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return sqlState(err) === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

/**
 * Postgres did not answer a statement within tack's own bound (the statement timeout plus a
 * grace for the answer to arrive): the server is stalled or the network drops everything.
 * The connection it was sent on is dropped; the statement may or may not have run (a COMMIT
 * may have committed), so only a write guarded by an idempotency key is safe to retry.
 */
export class DatabaseTimeout extends Error {
  override name = 'DatabaseTimeout';
  readonly code = 'TACK_DB_TIMEOUT';

  constructor(readonly ms: number) {
    super(`Postgres did not answer within ${ms} ms`);
  }
}

/**
 * Postgres cannot serve the request now, and it may be retried: the connection was lost, the
 * server did not answer in time (`DatabaseTimeout`), or it cancelled the statement (57014:
 * statement_timeout, or an operator's pg_cancel_backend).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return err instanceof DatabaseTimeout || sqlState(err) === '57014' || isConnectionLost(err);
}

/**
 * The connection or the server went away (a restart, `pg_terminate_backend`, a network
 * cut, idle_in_transaction_session_timeout (25P03)): the request may be retried once
 * Postgres answers again.
 */
export function isConnectionLost(err: unknown): boolean {
  const code = sqlState(err);
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', '25P03'].includes(code)) return true;
  if (code.startsWith('08')) return true;
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}
