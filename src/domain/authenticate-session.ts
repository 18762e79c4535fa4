import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Principal } from './context.js';
import { PROFILE_COLUMNS, profileOf, replaySecretOf, type Authenticated } from './authenticate.js';
import { AppError } from './errors.js';
import { idleBound, isWellFormedSessionSecret, scopesForRole, SESSION_IDLE_MS, SESSION_TOUCH_MS } from './sessions.js';
import { pgTimestamp } from './time.js';
import { hashToken, sameDigest } from './token-format.js';

export const sessionEnded = () => new AppError('unauthorized', 401, 'You are signed out: your session has ended. Sign in again.');

/**
 * Resolves a session cookie to its principal: the member, as a human caller, with every
 * scope the member's role allows. A session idle for 30 days, ended, or whose member is gone
 * is 401. `last_used_at` moves forward at most once an hour, so most requests only read.
 */
export async function authenticateSession(db: Kysely<Database>, secret: string, now: Date): Promise<Authenticated> {
  if (!isWellFormedSessionSecret(secret)) throw sessionEnded();
  const digest = hashToken(secret);
  const row = await db
    .selectFrom('sessions')
    .innerJoin('members', 'members.id', 'sessions.member_id')
    .innerJoin('organizations', 'organizations.id', 'sessions.org_id')
    .select(['sessions.id as session_id', 'sessions.secret_hash', 'sessions.org_id', 'sessions.member_id', 'sessions.last_used_at', ...PROFILE_COLUMNS])
    .where('sessions.secret_hash', '=', digest)
    .where('sessions.last_used_at', '>', idleBound(now))
    .executeTakeFirst();
  if (!row || !sameDigest(row.secret_hash, digest)) throw sessionEnded();
  let lastUsed = pgTimestamp(row.last_used_at).getTime();
  if (now.getTime() - lastUsed >= SESSION_TOUCH_MS) {
    await db.updateTable('sessions').set({ last_used_at: now.toISOString() }).where('id', '=', row.session_id).execute();
    lastUsed = now.getTime();
  }
  return {
    principal: {
      orgId: row.org_id,
      memberId: row.member_id,
      tokenId: null,
      sessionId: row.session_id,
      role: row.role,
      scopes: scopesForRole(row.role),
      agent: false,
      replaySecret: replaySecretOf(secret),
      profile: profileOf(row),
    },
    expiresAt: lastUsed + SESSION_IDLE_MS,
  };
}

/**
 * Re-reads a session inside a write's own transaction (as `confirmPrincipal` does for
 * tokens): a session ended or idled out in any process, or whose member is gone, writes
 * nothing, and the write runs with the member's current role and the scopes it allows.
 */
export async function confirmSession(db: Kysely<Database>, principal: Principal, sessionId: string, now: Date): Promise<Principal> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('members', (j) => j.onRef('members.id', '=', 'sessions.member_id').onRef('members.org_id', '=', 'sessions.org_id'))
    .select('members.role')
    .where('sessions.org_id', '=', principal.orgId)
    .where('sessions.id', '=', sessionId)
    .where('sessions.last_used_at', '>', idleBound(now))
    .executeTakeFirst();
  if (!row) throw sessionEnded();
  return row.role === principal.role ? principal : { ...principal, role: row.role, scopes: scopesForRole(row.role) };
}
