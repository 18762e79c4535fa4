import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { Database, Role } from '../db/schema.js';
import type { CredentialLimits, Ctx, Scope } from './context.js';
import { onLiveToken } from './credential-limits.js';
import { AppError, notFound } from './errors.js';
import { id, pageQuery } from './fields.js';
import { newId } from './ids.js';
import { isAdmin, scopeRefusal } from './permissions.js';
import { assertMayActOn } from './role-ladder.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { toIso } from './time.js';
import { hashToken } from './token-format.js';

/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 30 * 24 * 60 * 60 * 1000;
/** `last_used_at` is written at most this often per session, so a request rarely writes. */
export const SESSION_TOUCH_MS = 60 * 60 * 1000;

/** What a signed-in person may do: every scope their role can use (contract §3). */
export function scopesForRole(role: Role): Scope[] {
  switch (role) {
    case 'owner':
    case 'admin':
      return ['read', 'write', 'replay', 'config:write'];
    case 'member':
      return ['read', 'write', 'replay'];
    case 'viewer':
      return ['read'];
  }
}

/**
 * What a session may use: its role's scopes, narrowed to the scopes of what asked for its
 * sign-in link (null: nothing narrower than the role).
 */
export function sessionScopes(role: Role, held: readonly string[] | null): Scope[] {
  const allowed = scopesForRole(role);
  return held === null ? allowed : allowed.filter((s) => held.includes(s));
}

/** A session's secret, the cookie's value: 256 random bits, base64url. */
export function newSessionSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Shape check before any database look-up. */
export function isWellFormedSessionSecret(secret: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(secret);
}

/** `now - 30 days` as the bound for live sessions. */
export function idleBound(now: Date): string {
  return new Date(now.getTime() - SESSION_IDLE_MS).toISOString();
}

/**
 * Sessions alive at `now`: used within 30 days, and the token their link was asked for with
 * (if any) neither revoked nor expired. That token's columns are joined as `tokens`.
 *
 * ```sql
 * select … from sessions left join tokens on tokens.id = sessions.token_id
 * where sessions.last_used_at > $now - 30 days and <onLiveToken('sessions.token_id')>
 * ```
 */
export function liveSessions(db: Kysely<Database>, now: Date) {
  return db
    .selectFrom('sessions')
    .leftJoin('tokens', 'tokens.id', 'sessions.token_id')
    .where('sessions.last_used_at', '>', idleBound(now))
    .where(onLiveToken('sessions.token_id', now));
}

export const sessionSchema = z.object({
  id: z.string(),
  user_agent: z.string().nullable().describe('The browser that signed in, as it named itself'),
  created_at: z.string(),
  last_used_at: z.string().describe('Last request, to the hour'),
  expires_at: z.string().describe('When the session ends unless it is used before'),
  current: z.boolean().describe('True for the session this request was made with'),
});
export type Session = z.infer<typeof sessionSchema>;

export const listSessionsInput = z.object(pageQuery);
/** What `DELETE /v1/sessions/{id}` calls the session the request was made with. */
export const CURRENT_SESSION = 'current';

export const deleteSessionInput = z.object({
  id: id('ses').describe('Session id (ses_…), or `current`: the session this request was made with'),
});

const USER_AGENT_MAX = 300;

/**
 * Starts a session for a member (inside the caller's transaction), held to what its sign-in
 * link was made with; returns its id and secret.
 */
export async function startSession(
  db: Kysely<Database>,
  at: { orgId: string; memberId: string; userAgent: string | undefined; now: Date; limits: Omit<CredentialLimits, 'expiresAt'> },
): Promise<{ id: string; secret: string }> {
  const secret = newSessionSecret();
  const sessionId = newId('ses');
  const now = at.now.toISOString();
  await db
    .insertInto('sessions')
    .values({
      id: sessionId,
      org_id: at.orgId,
      member_id: at.memberId,
      secret_hash: hashToken(secret),
      user_agent: at.userAgent ? at.userAgent.slice(0, USER_AGENT_MAX) : null,
      created_at: now,
      last_used_at: now,
      token_id: at.limits.tokenId,
      scopes: at.limits.scopes === null ? null : [...at.limits.scopes],
      role_ceiling: at.limits.ceiling,
    })
    .execute();
  return { id: sessionId, secret };
}

/** The caller's own live sessions, newest first; `current` marks the one this request came with. */
export async function listSessions(ctx: Ctx, input: z.infer<typeof listSessionsInput>): Promise<Page<Session>> {
  const scope = ['sessions', ctx.principal.orgId, ctx.principal.memberId];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = liveSessions(ctx.db, ctx.clock())
    .select(['sessions.id', 'sessions.user_agent', 'sessions.created_at', 'sessions.last_used_at', 'tokens.expires_at as token_expires_at'])
    .where('sessions.org_id', '=', ctx.principal.orgId)
    .where('sessions.member_id', '=', ctx.principal.memberId);
  if (at) q = q.where(before('sessions.created_at', 'sessions.id', at, 'timestamptz'));
  const rows = await q.orderBy('sessions.created_at', 'desc').orderBy('sessions.id', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(
    rows,
    limit,
    (r) => ({ key: r.created_at, id: r.id }),
    (r) => ({
      id: r.id,
      user_agent: r.user_agent,
      created_at: toIso(r.created_at),
      last_used_at: toIso(r.last_used_at),
      expires_at: sessionEnd(r.last_used_at, r.token_expires_at),
      current: r.id === ctx.principal.sessionId,
    }),
    scope,
  );
}

/** When a session ends unless used before: 30 days after its last use, or when its token expires if sooner. */
function sessionEnd(lastUsedAt: string, tokenExpiresAt: string | null): string {
  const idle = Date.parse(toIso(lastUsedAt)) + SESSION_IDLE_MS;
  const end = tokenExpiresAt === null ? idle : Math.min(idle, Date.parse(toIso(tokenExpiresAt)));
  return new Date(end).toISOString();
}

/**
 * Ends a session (contract §9). One's own, `current` included, with any scope and any role,
 * viewers too. Another member's only as owner or admin with `config:write`, and never one of
 * a member above the caller's role (403 `forbidden_role`); to anyone else it is 404, as if
 * it did not exist, since they cannot list it either.
 */
export async function deleteSession(ctx: Ctx, input: z.infer<typeof deleteSessionInput>): Promise<void> {
  const { principal } = ctx;
  const sessionId = input.id === CURRENT_SESSION ? principal.sessionId : input.id;
  if (sessionId === undefined) {
    throw new AppError('session_not_found', 404, 'This request was not made with a web session, so there is no current session to end.');
  }
  const row = await ctx.db
    .selectFrom('sessions')
    .innerJoin('members', 'members.id', 'sessions.member_id')
    .select(['sessions.id', 'sessions.member_id', 'members.role'])
    .where('sessions.org_id', '=', principal.orgId)
    .where('sessions.id', '=', sessionId)
    .executeTakeFirst();
  if (!row) throw notFound('session', input.id);
  if (row.member_id !== principal.memberId) {
    if (!isAdmin(principal) || scopeRefusal(principal, 'config:write')) throw notFound('session', input.id);
    assertMayActOn(principal, row.role);
  }
  await endSession(ctx.db, principal.orgId, row.member_id, row.id);
}

/**
 * Ends a member's session. `delete from sessions where id = $1 and member_id = $2 returning id`
 */
export async function endSession(db: Kysely<Database>, orgId: string, memberId: string, sessionId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('sessions')
    .where('id', '=', sessionId)
    .where('org_id', '=', orgId)
    .where('member_id', '=', memberId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Forgets sessions idle past their end and sign-in links past theirs (run hourly by the server). */
export async function pruneSignins(db: Kysely<Database>, now: Date): Promise<void> {
  await db.deleteFrom('sessions').where('last_used_at', '<=', idleBound(now)).execute();
  await db.deleteFrom('signin_links').where('expires_at', '<', sql<string>`${now.toISOString()}::timestamptz - interval '1 day'`).execute();
}
