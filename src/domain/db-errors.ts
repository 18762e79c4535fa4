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
 * "cached plan must not change result type" (0A000): a named prepared statement planned
 * before another process changed the table's columns. Re-preparing it fixes it.
 */
export function isStalePlan(err: unknown): boolean {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return sqlState(err) === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

/**
 * The connection or the server went away (a restart, `pg_terminate_backend`, a network
 * cut): the request may be retried once Postgres answers again.
 */
export function isConnectionLost(err: unknown): boolean {
  const code = sqlState(err);
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  if (code.startsWith('08')) return true;
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}
