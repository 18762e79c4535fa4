import { sql, type RawBuilder } from 'kysely';
import type { Role } from '../db/schema.js';
import type { CredentialLimits, Principal } from './context.js';
import { isAbove } from './role-ladder.js';

/** The role a credential acts with: the lower of its member's current role and its ceiling. */
export function cappedRole(role: Role, ceiling: Role | null): Role {
  return ceiling !== null && isAbove(role, ceiling) ? ceiling : role;
}

/**
 * The ceiling of a credential `principal` makes for `memberId`: for another member, the
 * role the maker acts with now; for oneself, the maker's own ceiling (none for one's own
 * uncapped credentials, which follow one's current role).
 */
export function ceilingFor(principal: Principal, memberId: string): Role | null {
  return memberId === principal.memberId ? (principal.limits?.ceiling ?? null) : principal.role;
}

/** What a sign-in link that `principal` makes for `memberId` hands on to its session. */
export function linkLimits(principal: Principal, memberId: string): Omit<CredentialLimits, 'expiresAt'> {
  return {
    tokenId: principal.limits?.tokenId ?? null,
    scopes: principal.limits?.scopes ?? null,
    ceiling: ceilingFor(principal, memberId),
  };
}

/**
 * True for a row (a session, a sign-in link) whose `token_id` is null or names a token
 * neither revoked nor expired at `now`:
 *
 * ```sql
 * (token_id is null or exists (select from tokens where tokens.id = token_id
 *   and tokens.revoked_at is null and (tokens.expires_at is null or tokens.expires_at > $now)))
 * ```
 */
export function onLiveToken(tokenIdColumn: 'sessions.token_id' | 'signin_links.token_id', now: Date): RawBuilder<boolean> {
  const column = sql.ref(tokenIdColumn);
  return sql<boolean>`(${column} is null or exists (select from tokens where tokens.id = ${column} and tokens.revoked_at is null and (tokens.expires_at is null or tokens.expires_at > ${now.toISOString()}::timestamptz)))`;
}
