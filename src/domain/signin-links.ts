import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import { announceAuthChange } from '../db/auth-notifications.js';
import type { CredentialLimits, Ctx, Scope } from './context.js';
import { linkLimits, onLiveToken } from './credential-limits.js';
import { AppError } from './errors.js';
import { id } from './fields.js';
import { newId } from './ids.js';
import { getMember } from './members.js';
import { requireConfigWrite } from './permissions.js';
import { assertSigninLink, signinLinkRequiresHuman } from './member-checks.js';
import { isWellFormedSessionSecret, startSession } from './sessions.js';
import { hashToken } from './token-format.js';

/** A sign-in link works once, within this long. */
export const SIGNIN_LINK_TTL_MS = 15 * 60 * 1000;

export const createSigninLinkInput = z.object({ id: id('mem').describe('The member who will be signed in') });

export const signinLinkSchema = z.object({
  url: z.string().describe('{APP_URL}/signin?code=…: one use, valid 15 minutes'),
  expires_at: z.string(),
});
export type SigninLink = z.infer<typeof signinLinkSchema>;

export const invalidSigninCode = () =>
  new AppError('invalid_signin_code', 400, 'This sign-in link was already used, has expired, or is not valid. Ask for a new one.');

/** Shape check before any database look-up: 256 random bits, base64url. */
export function isWellFormedSigninCode(code: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(code);
}

/**
 * Makes a sign-in link for a member of the organization: for oneself with `write`, for
 * another member with `config:write` as owner or admin, and never for a member whose role is
 * above the caller's. An agent token makes none: a link gives a human session. The session
 * it becomes is held to what made the link (contract §9): at most the caller's scopes, ended
 * with the caller's token (or the token behind the caller's session), and, for another
 * member, never above the caller's role.
 */
export async function createSigninLink(ctx: Ctx, input: z.infer<typeof createSigninLinkInput>): Promise<SigninLink> {
  if (ctx.principal.agent) throw signinLinkRequiresHuman();
  if (input.id !== ctx.principal.memberId) requireConfigWrite(ctx.principal);
  const member = await getMember(ctx.db, ctx.principal.orgId, input.id);
  assertSigninLink(ctx.principal, member.id, member.role);
  return issueSigninLink(ctx.db, {
    orgId: ctx.principal.orgId,
    memberId: member.id,
    createdBy: ctx.principal.memberId,
    now: ctx.clock(),
    appUrl: appUrlOf(ctx),
    limits: linkLimits(ctx.principal, member.id),
  });
}

function appUrlOf(ctx: Ctx): string {
  if (ctx.appUrl === undefined) throw new Error('createSigninLink needs the app URL in its Ctx');
  return ctx.appUrl;
}

/** What a link's session is held to: see `CredentialLimits` (a link's own end is its 15 minutes). */
export type LinkLimits = Omit<CredentialLimits, 'expiresAt'>;

/** Stores a new link's code hash and returns the link: `{appUrl}/signin?code=<code>`. */
export async function issueSigninLink(
  db: Kysely<Database>,
  at: { orgId: string; memberId: string; createdBy: string; now: Date; appUrl: string; limits: LinkLimits },
): Promise<SigninLink> {
  const code = randomBytes(32).toString('base64url');
  const expiresAt = new Date(at.now.getTime() + SIGNIN_LINK_TTL_MS).toISOString();
  await db
    .insertInto('signin_links')
    .values({
      id: newId('sil'),
      org_id: at.orgId,
      member_id: at.memberId,
      created_by: at.createdBy,
      code_hash: hashToken(code),
      expires_at: expiresAt,
      created_at: at.now.toISOString(),
      token_id: at.limits.tokenId,
      scopes: at.limits.scopes === null ? null : [...at.limits.scopes],
      role_ceiling: at.limits.ceiling,
    })
    .execute();
  return { url: `${at.appUrl}/signin?code=${code}`, expires_at: expiresAt };
}

/**
 * Whom a link signs in and into which organization, for its page (`GET /signin`); undefined
 * when it would not sign in. Changes nothing.
 */
export async function describeSigninCode(
  db: Kysely<Database>,
  code: string,
  now: Date,
): Promise<{ org: string; member: string } | undefined> {
  if (!isWellFormedSigninCode(code)) return undefined;
  return db
    .selectFrom('signin_links')
    .innerJoin('members', 'members.id', 'signin_links.member_id')
    .innerJoin('organizations', 'organizations.id', 'signin_links.org_id')
    .select(['members.name as member', 'organizations.name as org'])
    .where('signin_links.code_hash', '=', hashToken(code))
    .where('signin_links.used_at', 'is', null)
    .where('signin_links.expires_at', '>', now.toISOString())
    .where(onLiveToken('signin_links.token_id', now))
    .executeTakeFirst();
}

/**
 * Exchanges a code for a new session, once, held to what the link was made with. The link
 * is marked used by the same statement that finds it, so two requests with one code never
 * both sign in:
 * `update signin_links set used_at = $now where code_hash = $1 and used_at is null and expires_at > $now
 * and <onLiveToken('signin_links.token_id')> returning …` (a link whose token was revoked or has
 * expired since signs nobody in).
 * A session the browser already had (`replaces`, its cookie's secret) is ended in the same
 * transaction, which then tells every process (`replaced`).
 */
export async function redeemSigninCode(
  db: Kysely<Database>,
  code: string,
  at: { now: Date; userAgent: string | undefined; replaces?: string },
): Promise<{ sessionId: string; secret: string; replaced: boolean }> {
  if (!isWellFormedSigninCode(code)) throw invalidSigninCode();
  const now = at.now.toISOString();
  return db.transaction().execute(async (trx) => {
    const link = await trx
      .updateTable('signin_links')
      .set({ used_at: now })
      .where('code_hash', '=', hashToken(code))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .where(onLiveToken('signin_links.token_id', at.now))
      .returning(['org_id', 'member_id', 'token_id', 'scopes', 'role_ceiling'])
      .executeTakeFirst();
    if (!link) throw invalidSigninCode();
    const limits: LinkLimits = { tokenId: link.token_id, scopes: link.scopes as Scope[] | null, ceiling: link.role_ceiling };
    const session = await startSession(trx, { orgId: link.org_id, memberId: link.member_id, userAgent: at.userAgent, now: at.now, limits });
    let replaced = false;
    if (at.replaces !== undefined && isWellFormedSessionSecret(at.replaces)) {
      const gone = await trx.deleteFrom('sessions').where('secret_hash', '=', hashToken(at.replaces)).returning('id').executeTakeFirst();
      if (gone) {
        await announceAuthChange(trx);
        replaced = true;
      }
    }
    return { sessionId: session.id, secret: session.secret, replaced };
  });
}
