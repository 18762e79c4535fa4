import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { confirmPrincipal } from './authenticate.js';
import { confirmSession } from './authenticate-session.js';
import type { Principal } from './context.js';

/**
 * The caller as the database says it is now, read inside a write's own transaction: a
 * revoked token or an ended session writes nothing in any process, whatever a cache holds.
 * Slack users (no token, no session) are read afresh for each command already.
 */
export async function confirmCaller(db: Kysely<Database>, principal: Principal, now: Date): Promise<Principal> {
  return (await confirmCallerLocking(db, principal, now)).principal;
}

/**
 * `confirmCaller`, taking the transaction lock named `lock` (an idempotency key's) in the same
 * statement, one round trip less; `locked` is undefined when no statement was made (Slack).
 */
export function confirmCallerLocking(db: Kysely<Database>, principal: Principal, now: Date, lock?: string): Promise<{ principal: Principal; locked?: boolean }> {
  if (principal.sessionId !== undefined) return confirmSession(db, principal, principal.sessionId, now, lock);
  return confirmPrincipal(db, principal, now, lock);
}
