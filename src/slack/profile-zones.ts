/**
 * The time zones of Slack profiles, remembered for a while per Slack user, so the rule "the
 * member's zone, else the Slack profile's" (src/domain/time-zone.ts) costs one `users.info`
 * per user every PROFILE_ZONE_TTL_MS instead of one per write. A zone a person changes in
 * Slack reaches tack within that time. Failures are not remembered.
 */
export const PROFILE_ZONE_TTL_MS = 15 * 60 * 1000;
const MAX_ENTRIES = 10_000;

const zones = new Map<string, { tz: string | undefined; until: number }>();

/** The zone of `slackUserId`'s profile: remembered, else read with `read` (undefined: unknown or none). */
export async function profileZoneOf(slackUserId: string, read: () => Promise<{ tz: string | undefined } | undefined>, now = Date.now()): Promise<string | undefined> {
  const known = zones.get(slackUserId);
  if (known && known.until > now) return known.tz;
  const profile = await read();
  if (profile === undefined) return undefined;
  zones.delete(slackUserId);
  if (zones.size >= MAX_ENTRIES) zones.delete(zones.keys().next().value as string);
  zones.set(slackUserId, { tz: profile.tz, until: now + PROFILE_ZONE_TTL_MS });
  return profile.tz;
}
