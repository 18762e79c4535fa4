import { z } from 'zod';
import type { Ctx, Scope } from './context.js';
import { SCOPES } from './context.js';
import { AppError, notFound, validationFailed } from './errors.js';
import { id, isoDateTime, label, pageQuery } from './fields.js';
import { newId } from './ids.js';
import { getMember } from './members.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { ceilingFor } from './credential-limits.js';
import { isAdmin, requireConfigWrite } from './permissions.js';
import { assertMayActOn } from './role-ladder.js';
import { toIso } from './time.js';
import { generateToken, hashToken, tokenHint } from './token-format.js';
import type { Database, TokensTable } from '../db/schema.js';
import type { Kysely } from 'kysely';

export const tokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  member_id: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  agent: z.boolean(),
  hint: z.string().describe('The start of the token, safe to show'),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_at: z.string(),
});
export type Token = z.infer<typeof tokenSchema>;

export const createdTokenSchema = tokenSchema.extend({
  token: z.string().describe('The secret token. Shown this once; only its SHA-256 is kept.'),
});

export const createTokenInput = z.object({
  name: label(100),
  scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length).default(['read']),
  agent: z.boolean().optional().describe('An agent token (refused on gated moves). Default false; a token made by an agent token is always one, and asking it for false is refused'),
  member_id: id('mem').optional().describe("The member the token acts as; others' tokens need config:write"),
  expires_at: isoDateTime.optional(),
});

export const listTokensInput = z.object(pageQuery);
export const revokeTokenInput = z.object({ id: id('tok') });

type TokenRow = Pick<TokensTable, 'id' | 'name' | 'member_id' | 'scopes' | 'agent' | 'hint'> & {
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
};

const tokenColumns = ['id', 'name', 'member_id', 'scopes', 'agent', 'hint', 'expires_at', 'revoked_at', 'created_at'] as const;

/** One token of the organization as `listTokens` shows it, or undefined (events' `data`). */
export async function readToken(db: Kysely<Database>, orgId: string, tokenId: string): Promise<Token | undefined> {
  const row = await db.selectFrom('tokens').select(tokenColumns).where('org_id', '=', orgId).where('id', '=', tokenId).executeTakeFirst();
  return row && presentToken(row);
}

export function presentToken(row: TokenRow): Token {
  return {
    id: row.id,
    name: row.name,
    member_id: row.member_id,
    scopes: row.scopes as Scope[],
    agent: row.agent,
    hint: row.hint,
    expires_at: toIso(row.expires_at),
    revoked_at: toIso(row.revoked_at),
    created_at: toIso(row.created_at),
  };
}

/** Your own tokens; with `config:write` as owner or admin, every token of the organization. */
export async function listTokens(ctx: Ctx, input: z.infer<typeof listTokensInput>): Promise<Page<Token>> {
  const all = ctx.principal.scopes.includes('config:write') && isAdmin(ctx.principal);
  const scope = ['tokens', ctx.principal.orgId, all ? '*' : ctx.principal.memberId];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = ctx.db.selectFrom('tokens').select(tokenColumns).where('org_id', '=', ctx.principal.orgId);
  if (!all) q = q.where('member_id', '=', ctx.principal.memberId);
  if (at) q = q.where(before('created_at', 'id', at, 'timestamptz'));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.created_at, id: r.id }), presentToken, scope);
}

/**
 * A new token never holds more than what made it (contract §9): its scopes must be a subset
 * of the caller's, a token made by an agent token is an agent token too (asked for a human
 * one, it refuses), it ends no later than the caller's own token does, and it is never for a
 * member whose role is above the caller's (the role ladder). Made for another member, it
 * carries the caller's role as its ceiling; one's own keeps the caller's ceiling, if any.
 */
export async function createToken(ctx: Ctx, input: z.infer<typeof createTokenInput>): Promise<z.infer<typeof createdTokenSchema>> {
  const memberId = input.member_id ?? ctx.principal.memberId;
  const self = memberId === ctx.principal.memberId;
  if (!self) requireConfigWrite(ctx.principal);
  const member = await getMember(ctx.db, ctx.principal.orgId, memberId);
  // One's own token keeps the caller's ceiling, so a capped caller may make one too.
  if (!self) assertMayActOn(ctx.principal, member.role);
  if (ctx.principal.agent && input.agent === false) {
    throw new AppError('agent_token_required', 403, 'An agent token makes agent tokens only: leave agent out or send true, or ask a person for a human token.');
  }
  const wider = input.scopes.filter((s) => !ctx.principal.scopes.includes(s));
  if (wider.length > 0) {
    throw new AppError('insufficient_scope', 403, `A token cannot grant scopes it does not hold: ${wider.join(', ')}.`);
  }
  const expiresAt = tokenEnd(ctx, input.expires_at);
  const secret = generateToken();
  const row = await ctx.db
    .insertInto('tokens')
    .values({
      id: newId('tok'),
      org_id: ctx.principal.orgId,
      member_id: member.id,
      created_by: ctx.principal.memberId,
      name: input.name,
      token_hash: hashToken(secret),
      hint: tokenHint(secret),
      scopes: [...new Set(input.scopes)],
      agent: input.agent ?? ctx.principal.agent,
      expires_at: expiresAt,
      role_ceiling: ceilingFor(ctx.principal, member.id),
    })
    .returning(tokenColumns)
    .executeTakeFirstOrThrow();
  return { ...presentToken(row), token: secret };
}

/**
 * When a new token ends: as asked, in the future, and never after the caller's credential
 * ends (its token's expiry, or that of the token behind its session); when not asked, then.
 */
function tokenEnd(ctx: Ctx, asked: string | undefined): string | null {
  const limit = ctx.principal.limits?.expiresAt ?? null;
  if (asked === undefined) return limit === null ? null : new Date(limit).toISOString();
  const at = Date.parse(asked);
  if (at <= ctx.clock().getTime()) {
    throw validationFailed([{ field: 'expires_at', code: 'in_the_past', message: 'expires_at must be in the future.' }]);
  }
  if (limit !== null && at > limit) {
    const end = new Date(limit).toISOString();
    throw validationFailed([
      { field: 'expires_at', code: 'after_caller_expires', message: `expires_at must be no later than ${end}, when the token you are using expires.` },
    ]);
  }
  return asked;
}

/**
 * Revokes a token; it gets 401 from its next request on, and so do the sessions made from
 * sign-in links it asked for. One's own, with any scope and any role (viewers too); another
 * member's only as owner or admin with `config:write`, and never one of a member above the
 * caller's role (403 `forbidden_role`, contract §9).
 */
export async function revokeToken(ctx: Ctx, input: z.infer<typeof revokeTokenInput>): Promise<void> {
  const row = await ctx.db
    .selectFrom('tokens')
    .innerJoin('members', 'members.id', 'tokens.member_id')
    .select(['tokens.id', 'tokens.member_id', 'tokens.revoked_at', 'members.role'])
    .where('tokens.org_id', '=', ctx.principal.orgId)
    .where('tokens.id', '=', input.id)
    .forUpdate('tokens')
    .executeTakeFirst();
  if (!row) throw notFound('token', input.id);
  if (row.member_id !== ctx.principal.memberId) {
    requireConfigWrite(ctx.principal);
    assertMayActOn(ctx.principal, row.role);
  }
  if (row.revoked_at !== null) return;
  await ctx.db
    .updateTable('tokens')
    .set({ revoked_at: ctx.clock().toISOString() })
    .where('org_id', '=', ctx.principal.orgId)
    .where('id', '=', row.id)
    .execute();
}
