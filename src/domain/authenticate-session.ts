import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { claimOf, keyClaimColumns, type KeyClaim, type KeyClaimValues } from './idempotency.js';
import type { Principal } from './context.js';
import { PROFILE_COLUMNS, profileOf, replaySecretOf, type Authenticated } from './authenticate.js';
import { cappedRole } from './credential-limits.js';
import { AppError } from './errors.js';
import { isWellFormedSessionSecret, liveSessions, sessionScopes, SESSION_IDLE_MS, SESSION_TOUCH_MS } from './sessions.js';
import { pgTimestamp } from './time.js';
import { hashToken, sameDigest } from './token-format.js';

export const sessionEnded = () => new AppError('unauthorized', 401, 'You are signed out: your session has ended. Sign in again.');

/**
 * Resolves a session cookie to its principal: the member, as a human caller, with the role
 * the member has now (under the session's ceiling) and the scopes that role allows (within
 * those of the token that asked for its link). A session idle for 30 days, ended, whose
 * member is gone, or whose token is revoked or expired, is 401. `last_used_at` moves forward
 * at most once an hour, so most requests only read.
 */
export async function authenticateSession(db: Kysely<Database>, secret: string, now: Date): Promise<Authenticated> {
  if (!isWellFormedSessionSecret(secret)) throw sessionEnded();
  const digest = hashToken(secret);
  const row = await liveSessions(db, now)
    .innerJoin('members', 'members.id', 'sessions.member_id')
    .innerJoin('organizations', 'organizations.id', 'sessions.org_id')
    .select([
      'sessions.id as session_id',
      'sessions.secret_hash',
      'sessions.org_id',
      'sessions.member_id',
      'sessions.last_used_at',
      'sessions.token_id',
      'sessions.scopes',
      'sessions.role_ceiling',
      'tokens.expires_at as token_expires_at',
      ...PROFILE_COLUMNS,
    ])
    .where('sessions.secret_hash', '=', digest)
    .executeTakeFirst();
  if (!row || !sameDigest(row.secret_hash, digest)) throw sessionEnded();
  let lastUsed = pgTimestamp(row.last_used_at).getTime();
  if (now.getTime() - lastUsed >= SESSION_TOUCH_MS) {
    await db.updateTable('sessions').set({ last_used_at: now.toISOString() }).where('id', '=', row.session_id).execute();
    lastUsed = now.getTime();
  }
  const tokenEnds = row.token_expires_at === null ? null : pgTimestamp(row.token_expires_at).getTime();
  const role = cappedRole(row.role, row.role_ceiling);
  return {
    principal: {
      orgId: row.org_id,
      memberId: row.member_id,
      tokenId: null,
      sessionId: row.session_id,
      role,
      scopes: sessionScopes(role, row.scopes),
      agent: false,
      face: 'web',
      limits: { tokenId: row.token_id, scopes: row.scopes as Principal['scopes'] | null, ceiling: row.role_ceiling, expiresAt: tokenEnds },
      replaySecret: replaySecretOf(secret),
      profile: profileOf(row),
    },
    expiresAt: tokenEnds === null ? lastUsed + SESSION_IDLE_MS : Math.min(lastUsed + SESSION_IDLE_MS, tokenEnds),
  };
}

/**
 * Re-reads a session inside a write's own transaction (as `confirmPrincipal` does for
 * tokens): a session ended or idled out in any process, whose member is gone, or whose
 * token was revoked or expired, writes nothing, and the write runs with the member's current
 * role (under the session's ceiling) and the scopes it allows. `key`, when given, is claimed
 * in the same statement (see `confirmPrincipal`).
 */
export async function confirmSession(
  db: Kysely<Database>,
  principal: Principal,
  sessionId: string,
  now: Date,
  key?: KeyClaimValues,
): Promise<{ principal: Principal; claim?: KeyClaim }> {
  const row = await liveSessions(db, now)
    .innerJoin('members', (j) => j.onRef('members.id', '=', 'sessions.member_id').onRef('members.org_id', '=', 'sessions.org_id'))
    .select(['members.role', 'sessions.scopes', 'sessions.role_ceiling'])
    .$if(key !== undefined, (qb) => qb.select(keyClaimColumns(key!)))
    .where('sessions.org_id', '=', principal.orgId)
    .where('sessions.id', '=', sessionId)
    .executeTakeFirst();
  if (!row) throw sessionEnded();
  const role = cappedRole(row.role, row.role_ceiling);
  const confirmed = role === principal.role ? principal : { ...principal, role, scopes: sessionScopes(role, row.scopes) };
  return { principal: confirmed, ...(key && { claim: claimOf(row) }) };
}
