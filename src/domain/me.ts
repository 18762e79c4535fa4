import { z } from 'zod';
import { SCOPES, type Ctx, type Profile } from './context.js';
import { notFound } from './errors.js';
import { memberSchema, orgSchema, presentMember } from './members.js';

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
    .select([
      'members.id',
      'members.org_id',
      'members.name',
      'members.email',
      'members.role',
      'members.slack_user_id',
      'members.tz',
      'members.reminder_hour',
      'members.created_at',
      'organizations.slug as org_slug',
      'organizations.name as org_name',
    ])
    .where('members.id', '=', ctx.principal.memberId)
    .where('members.org_id', '=', ctx.principal.orgId)
    .executeTakeFirst();
  if (!row) throw notFound('member', ctx.principal.memberId);
  return { member: presentMember(row), org: { id: row.org_id, slug: row.org_slug, name: row.org_name } };
}
