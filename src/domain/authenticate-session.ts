import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
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
