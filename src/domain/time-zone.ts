import type { Ctx, Principal } from './context.js';
import { isIanaZone } from './fields.js';

/**
 * A member's time zone, the one rule every face reads days by (contract §9): the member's own
 * `tz`; else, for a Slack user, the zone of their linked Slack profile; else UTC. A zone that
 * is not a valid IANA name counts as none.
 */
export function memberZone(memberTz: string | null | undefined, slackProfileTz?: string | null): string {
  if (memberTz && isIanaZone(memberTz)) return memberTz;
  if (slackProfileTz && isIanaZone(slackProfileTz)) return slackProfileTz;
  return 'UTC';
}

/**
 * The caller's own `tz` setting: read with the token or session (the principal's profile), else
 * from the members table.
 */
async function ownTz(ctx: Pick<Ctx, 'db' | 'principal'>): Promise<string | null> {
  const cached = ctx.principal.profile?.member.tz;
  if (cached !== undefined) return cached;
  const row = await ctx.db
    .selectFrom('members')
    .select('tz')
    .where('org_id', '=', ctx.principal.orgId)
    .where('id', '=', ctx.principal.memberId)
    .executeTakeFirst();
  return row?.tz ?? null;
}

/**
 * The caller's time zone by `memberZone`: `today`, `tomorrow`, the due filters, `due_state`
 * and getMe's `today` all read days in it. The Slack profile is asked only when the member set
 * no zone of their own.
 */
export async function callerZone(ctx: Pick<Ctx, 'db' | 'principal'>): Promise<string> {
  const own = await ownTz(ctx);
  return memberZone(own, own && isIanaZone(own) ? undefined : await slackProfileZone(ctx.principal));
}

/** The linked Slack profile's zone, where the Slack face handed one over; undefined otherwise or when Slack did not say. */
export async function slackProfileZone(principal: Principal): Promise<string | undefined> {
  return principal.slackProfileZone ? await principal.slackProfileZone() : undefined;
}
