import { createHmac } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import type { Database } from '../db/schema.js';
import type { Principal, Profile, Scope } from './context.js';
import { cappedRole } from './credential-limits.js';
import { AppError } from './errors.js';
import { claimOf, keyClaimColumns, type KeyClaim, type KeyClaimValues } from './idempotency.js';
import { presentMember } from './members.js';
import { pgTimestamp } from './time.js';
import { hashToken, isWellFormedToken, sameDigest } from './token-format.js';

export const unauthorized = () =>
  new AppError('unauthorized', 401, 'A valid API token is required (Authorization: Bearer tack_live_…).');

/** A principal plus when its token stops working (null: never). */
export interface Authenticated {
  principal: Principal;
  expiresAt: number | null;
}

/** The member and organization columns a principal's profile is read from (joined as `members`, `organizations`). */
export const PROFILE_COLUMNS = [
  'members.role',
  'members.name',
  'members.email',
  'members.slack_user_id',
  'members.tz',
  'members.reminder_hour',
  'members.github_login',
  'members.notifications',
  'members.created_at',
  'organizations.slug as org_slug',
  'organizations.name as org_name',
] as const;

interface ProfileRow {
  org_id: string;
  member_id: string;
  role: Principal['role'];
  name: string;
  email: string | null;
  slack_user_id: string | null;
  tz: string | null;
  reminder_hour: number | null;
  github_login: string | null;
  notifications: unknown;
  created_at: string;
  org_slug: string;
  org_name: string;
}

/** Who a principal is, from a row read with `PROFILE_COLUMNS`. */
export function profileOf(row: ProfileRow): Profile {
  return {
    member: presentMember({ ...row, id: row.member_id }),
    org: { id: row.org_id, slug: row.org_slug, name: row.org_name },
  };
}

/** A key only the holder of `secret` can reproduce, for sealing their idempotent replays. */
export function replaySecretOf(secret: string): Buffer {
  return createHmac('sha256', secret).update('tack idempotent replay v1').digest();
}

/**
 * Resolves a bearer token to its principal: format and checksum first (no database
 * look-up for a typo), then the SHA-256 digest, compared again in constant time.
 */
export async function authenticateToken(db: Kysely<Database>, token: string, now: Date): Promise<Authenticated> {
  if (!isWellFormedToken(token)) throw unauthorized();
  const digest = hashToken(token);
  const row = await db
    .selectFrom('tokens')
    .innerJoin('members', 'members.id', 'tokens.member_id')
    .innerJoin('organizations', 'organizations.id', 'tokens.org_id')
    .select([
      'tokens.id as token_id',
      'tokens.token_hash',
      'tokens.org_id',
      'tokens.member_id',
      'tokens.scopes',
      'tokens.agent',
      'tokens.expires_at',
      'tokens.role_ceiling',
      ...PROFILE_COLUMNS,
    ])
    .where('tokens.token_hash', '=', digest)
    .where('tokens.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row || !sameDigest(row.token_hash, digest)) throw unauthorized();
  const expiresAt = row.expires_at === null ? null : pgTimestamp(row.expires_at).getTime();
  if (expiresAt !== null && expiresAt <= now.getTime()) throw unauthorized();
  const scopes = row.scopes as Scope[];
  return {
    principal: {
      orgId: row.org_id,
      memberId: row.member_id,
      tokenId: row.token_id,
      role: cappedRole(row.role, row.role_ceiling),
      scopes,
      agent: row.agent,
      limits: { tokenId: row.token_id, scopes, ceiling: row.role_ceiling, expiresAt },
      replaySecret: replaySecretOf(token),
      profile: profileOf(row),
    },
    expiresAt,
  };
}

/**
 * Re-reads the caller's token inside a write's own transaction, so a token whose revocation
 * has committed (in any process, whatever that process's cache still holds) writes nothing,
 * and the write runs with the member's current role (under the token's ceiling). Principals
 * without a token (a Slack user, read afresh for each command) are returned as they are.
 *
 * ```sql
 * select members.role, tokens.expires_at, tokens.role_ceiling from tokens join members on members.id = tokens.member_id
 * where tokens.org_id = $1 and tokens.id = $2 and tokens.revoked_at is null
 * ```
 */
/**
 * `key` (an idempotency key's lock and record, `keyClaimColumns`), when given, is claimed in
 * the same statement: one round trip less for a write with an Idempotency-Key. `claim` is
 * undefined when no statement was needed (a caller with no token).
 */
export async function confirmPrincipal(db: Kysely<Database>, principal: Principal, now: Date, key?: KeyClaimValues): Promise<Confirmed> {
  if (principal.tokenId === null) return { principal };
  const row = await tokenNow.executeTakeFirst(db, key !== undefined, { ...(key ?? NO_KEY), org: principal.orgId, token: principal.tokenId });
  if (!row) throw unauthorized();
  if (row.expires_at !== null && pgTimestamp(row.expires_at).getTime() <= now.getTime()) throw unauthorized();
  const role = cappedRole(row.role, row.role_ceiling);
  return { principal: role === principal.role ? principal : { ...principal, role }, ...(key && { claim: claimOf(row) }), orgWebhooks: row.org_webhooks };
}

/**
 * The caller as the write's transaction reads it; with `orgWebhooks`, whether its organization
 * had an enabled webhook when the write began (read in the same statement), else unknown.
 */
export interface Confirmed {
  principal: Principal;
  claim?: KeyClaim;
  orgWebhooks?: boolean;
}

const NO_KEY: KeyClaimValues = { lock: '', owner: '', operation: '', key: '' };

/** The token as it is now (`confirmPrincipal`), claiming the idempotency key in the same statement when `claiming`. */
const tokenNow = new QueryTemplate('confirmPrincipal', (db, claiming: boolean, v: KeyClaimValues & { org: string; token: string }) =>
  db
    .selectFrom('tokens')
    .innerJoin('members', (j) => j.onRef('members.id', '=', 'tokens.member_id').onRef('members.org_id', '=', 'tokens.org_id'))
    .select(['members.role', 'tokens.expires_at', 'tokens.role_ceiling'])
    .select(sql<boolean>`exists (select 1 from webhooks w where w.org_id = tokens.org_id and w.enabled)`.as('org_webhooks'))
    .$if(claiming, (qb) => qb.select(keyClaimColumns(v)))
    .where('tokens.org_id', '=', v.org)
    .where('tokens.id', '=', v.token)
    .where('tokens.revoked_at', 'is', null),
);
