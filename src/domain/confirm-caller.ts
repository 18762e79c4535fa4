import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { confirmPrincipal, type Confirmed } from './authenticate.js';
import { confirmSession } from './authenticate-session.js';
import type { Principal } from './context.js';
import type { KeyClaimValues } from './idempotency.js';

/**
 * The caller as the database says it is now, read inside a write's own transaction: a
 * revoked token or an ended session writes nothing in any process, whatever a cache holds.
 * Slack users (no token, no session) are read afresh for each command already.
 */
export async function confirmCaller(db: Kysely<Database>, principal: Principal, now: Date): Promise<Principal> {
  return (await confirmCallerClaiming(db, principal, now)).principal;
}

/**
 * `confirmCaller`, claiming an idempotency key (its lock and stored record, `keyClaimColumns`)
 * in the same statement, one round trip less; `claim` is undefined when no statement was made
 * (Slack). A token's statement also says whether its organization has an enabled webhook
 * (`orgWebhooks`, see `Ctx`).
 */
export function confirmCallerClaiming(db: Kysely<Database>, principal: Principal, now: Date, key?: KeyClaimValues): Promise<Confirmed> {
  if (principal.sessionId !== undefined) return confirmSession(db, principal, principal.sessionId, now, key);
  return confirmPrincipal(db, principal, now, key);
}

/** Whether `confirmCallerClaiming` reads the caller with a statement (a token's or a session's; Slack users need none). */
export function confirmsWithStatement(principal: Principal): boolean {
  return principal.sessionId !== undefined || principal.tokenId !== null;
}
