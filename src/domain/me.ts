import { z } from 'zod';
import { SCOPES, type Ctx, type Principal, type Profile } from './context.js';
import { notFound } from './errors.js';
import { JsonText } from './json-text.js';
import { PROFILE_COLUMNS, profileOf } from './authenticate.js';
import { memberSchema, orgSchema } from './members.js';
import { ROLES } from './vocabulary.js';

export const meSchema = z.object({
  member: memberSchema,
  org: orgSchema,
  role: z.enum(ROLES).describe("The role this request acts with: the member's role, or lower where the token or session was made by someone of a lower role for this member"),
  scopes: z.array(z.enum(SCOPES)),
  agent: z.boolean(),
});
export type Me = z.infer<typeof meSchema>;

/**
 * Answers already serialized, per principal that carries its profile. The auth cache hands
 * every request of a token (or session) the same principal object, and a change of tokens or
 * members makes it read a new one (principals are replaced, never changed), so an entry lives
 * exactly as long as what it was made of.
 */
const answers = new WeakMap<Principal, JsonText>();

/**
 * The caller: member, organization, the role and scopes it acts with, and whether it is an
 * agent. A token's principal already carries them (read with the token), and its answer is
 * serialized once; otherwise one query.
 */
export async function getMe(ctx: Ctx): Promise<Me | JsonText> {
  const { principal } = ctx;
  if (principal.profile === undefined) return meOf(principal, await loadProfile(ctx));
  let answer = answers.get(principal);
  if (answer === undefined) {
    answer = new JsonText(JSON.stringify(meOf(principal, principal.profile)));
    answers.set(principal, answer);
  }
  return answer;
}

function meOf(principal: Principal, profile: Profile): Me {
  return { member: profile.member, org: profile.org, role: principal.role, scopes: [...principal.scopes], agent: principal.agent };
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
