import { z } from 'zod';
import { SCOPES, type Ctx, type Profile } from './context.js';
import { notFound } from './errors.js';
import { PROFILE_COLUMNS, profileOf } from './authenticate.js';
import { memberSchema, orgSchema } from './members.js';

export const meSchema = z.object({
  member: memberSchema,
  org: orgSchema,
  scopes: z.array(z.enum(SCOPES)),
  agent: z.boolean(),
});
export type Me = z.infer<typeof meSchema>;

/**
 * The caller: member, organization, the token's scopes and whether it is an agent. A token's
 * principal already carries them (read with the token); otherwise one query.
 */
export async function getMe(ctx: Ctx): Promise<Me> {
  const { scopes, agent } = ctx.principal;
  const profile = ctx.principal.profile ?? (await loadProfile(ctx));
  return { member: profile.member, org: profile.org, scopes: [...scopes], agent };
}

async function loadProfile(ctx: Ctx): Promise<Profile> {
  const row = await ctx.db
    .selectFrom('members')
    .innerJoin('organizations', 'organizations.id', 'members.org_id')
    .select(['members.id as member_id', 'members.org_id', ...PROFILE_COLUMNS])
    .where('members.id', '=', ctx.principal.memberId)
    .where('members.org_id', '=', ctx.principal.orgId)
    .executeTakeFirst();
  if (!row) throw notFound('member', ctx.principal.memberId);
  return profileOf(row);
}
