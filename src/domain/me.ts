import { z } from 'zod';
import { SCOPES, type Ctx, type Principal, type Profile } from './context.js';
import { notFound } from './errors.js';
import { isoDate } from './fields.js';
import { RawJson } from '../db/raw-json.js';
import { PROFILE_COLUMNS, profileOf } from './authenticate.js';
import { callerAbilities, callerAbilitiesSchema } from './abilities.js';
import { memberSchema, orgSchema } from './member-schema.js';
import { callerZone } from './time-zone.js';
import { dayEndsAt, localToday } from './todo-due.js';
import { ROLES } from '../vocabulary.js';

export const meSchema = z.object({
  member: memberSchema,
  org: orgSchema,
  role: z.enum(ROLES).describe("The role this request acts with: the member's role, or lower where the token or session was made by someone of a lower role for this member"),
  scopes: z.array(z.enum(SCOPES)),
  agent: z.boolean(),
  today: isoDate.describe("Today's date in your time zone: the day `today`, the due filters and each todo's due_state count from"),
  time_zone: z.string().describe('The IANA time zone your days are read in: your own tz, else (Slack only) your Slack profile’s, else UTC'),
  abilities: callerAbilitiesSchema,
});
export type Me = z.infer<typeof meSchema>;

/** A serialized answer, and the instant it stops being true (the caller's midnight: `today` changes). */
interface Answer {
  json: RawJson<Me>;
  until: number;
}

/**
 * Answers already serialized, per principal that carries its profile. The auth cache hands
 * every request of a token (or session) the same principal object, and a change of tokens or
 * members makes it read a new one (principals are replaced, never changed), so an entry lives
 * at most as long as what it was made of, and never past the caller's midnight.
 */
const answers = new WeakMap<Principal, Answer>();

/**
 * The caller: member, organization, the role and scopes it acts with, whether it is an agent,
 * today's date in their zone and what they may do. A token's principal already carries the
 * member (read with the token), and its answer is serialized once a day; otherwise one query.
 */
export async function getMe(ctx: Ctx): Promise<Me | RawJson<Me>> {
  const { principal } = ctx;
  const now = ctx.clock();
  if (principal.profile === undefined) return meOf(principal, await loadProfile(ctx), await callerZone(ctx), now);
  let answer = answers.get(principal);
  if (answer === undefined || now.getTime() >= answer.until) {
    const zone = await callerZone(ctx);
    answer = { json: new RawJson<Me>(JSON.stringify(meOf(principal, principal.profile, zone, now))), until: dayEndsAt(now, zone) };
    answers.set(principal, answer);
  }
  return answer.json;
}

function meOf(principal: Principal, profile: Profile, zone: string, now: Date): Me {
  return {
    member: profile.member,
    org: profile.org,
    role: principal.role,
    scopes: [...principal.scopes],
    agent: principal.agent,
    today: localToday(now, zone),
    time_zone: zone,
    abilities: callerAbilities(principal),
  };
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
