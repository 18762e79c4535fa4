import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import type { Ctx } from './context.js';
import { AppError } from './errors.js';
import { id } from './fields.js';
import { newId } from './ids.js';
import { getMember } from './members.js';
import { requireConfigWrite } from './permissions.js';
import { assertMayActOn } from './role-ladder.js';
import { startSession } from './sessions.js';
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
 * above the caller's. An agent token makes none: a link gives a human session.
 */
export async function createSigninLink(ctx: Ctx, input: z.infer<typeof createSigninLinkInput>): Promise<SigninLink> {
  if (ctx.principal.agent) {
    throw new AppError('signin_link_requires_human', 403, 'An agent token cannot make sign-in links: a link signs a person in.');
  }
  if (input.id !== ctx.principal.memberId) requireConfigWrite(ctx.principal);
  const member = await getMember(ctx.db, ctx.principal.orgId, input.id);
  assertMayActOn(ctx.principal, member.role);
  return issueSigninLink(ctx.db, { orgId: ctx.principal.orgId, memberId: member.id, createdBy: ctx.principal.memberId, now: ctx.clock(), appUrl: appUrlOf(ctx) });
}

function appUrlOf(ctx: Ctx): string {
  if (ctx.appUrl === undefined) throw new Error('createSigninLink needs the app URL in its Ctx');
  return ctx.appUrl;
}

/** Stores a new link's code hash and returns the link: `{appUrl}/signin?code=<code>`. */
export async function issueSigninLink(
  db: Kysely<Database>,
  at: { orgId: string; memberId: string; createdBy: string; now: Date; appUrl: string },
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
    })
    .execute();
  return { url: `${at.appUrl}/signin?code=${code}`, expires_at: expiresAt };
}

/**
 * Exchanges a code for a new session, once. The link is marked used by the same statement
 * that finds it, so two requests with one code never both sign in:
 * `update signin_links set used_at = $now where code_hash = $1 and used_at is null and expires_at > $now returning …`
 */
export async function redeemSigninCode(
  db: Kysely<Database>,
  code: string,
  at: { now: Date; userAgent: string | undefined },
): Promise<{ sessionId: string; secret: string }> {
  if (!isWellFormedSigninCode(code)) throw invalidSigninCode();
  const now = at.now.toISOString();
  return db.transaction().execute(async (trx) => {
    const link = await trx
      .updateTable('signin_links')
      .set({ used_at: now })
      .where('code_hash', '=', hashToken(code))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['org_id', 'member_id'])
      .executeTakeFirst();
    if (!link) throw invalidSigninCode();
    const session = await startSession(trx, { orgId: link.org_id, memberId: link.member_id, userAgent: at.userAgent, now: at.now });
    return { sessionId: session.id, secret: session.secret };
  });
}
