import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { Database, Role } from '../db/schema.js';
import type { Ctx, Scope } from './context.js';
import { notFound } from './errors.js';
import { id, pageQuery } from './fields.js';
import { newId } from './ids.js';
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
export const deleteSessionInput = z.object({ id: id('ses') });

const USER_AGENT_MAX = 300;

/** Starts a session for a member (inside the caller's transaction); returns its id and secret. */
export async function startSession(
  db: Kysely<Database>,
  at: { orgId: string; memberId: string; userAgent: string | undefined; now: Date },
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
    })
    .execute();
  return { id: sessionId, secret };
}

/** The caller's own live sessions, newest first; `current` marks the one this request came with. */
export async function listSessions(ctx: Ctx, input: z.infer<typeof listSessionsInput>): Promise<Page<Session>> {
  const scope = ['sessions', ctx.principal.orgId, ctx.principal.memberId];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = ctx.db
    .selectFrom('sessions')
    .select(['id', 'user_agent', 'created_at', 'last_used_at'])
    .where('org_id', '=', ctx.principal.orgId)
    .where('member_id', '=', ctx.principal.memberId)
    .where('last_used_at', '>', idleBound(ctx.clock()));
  if (at) q = q.where(before('created_at', 'id', at, 'timestamptz'));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(
    rows,
    limit,
    (r) => ({ key: r.created_at, id: r.id }),
    (r) => ({
      id: r.id,
      user_agent: r.user_agent,
      created_at: toIso(r.created_at),
      last_used_at: toIso(r.last_used_at),
      expires_at: new Date(Date.parse(toIso(r.last_used_at)) + SESSION_IDLE_MS).toISOString(),
      current: r.id === ctx.principal.sessionId,
    }),
    scope,
  );
}

/** Ends one of the caller's own sessions; another member's is 404, as if it did not exist. */
export async function deleteSession(ctx: Ctx, input: z.infer<typeof deleteSessionInput>): Promise<void> {
  const ended = await endSession(ctx.db, ctx.principal.orgId, ctx.principal.memberId, input.id);
  if (!ended) throw notFound('session', input.id);
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
