import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Slack's Retry-After for the whole workspace (table `slack_rate_limits`, migration 0017): a
 * 429 one sweep got is kept here, so every worker and every later sweep (the next minute's,
 * `tack jobs run`, another process's) waits it out instead of posting straight into it. In
 * Postgres, not Redis: the jobs run without Redis too.
 */

/** The one scope kept: the bot token's workspace. */
const WORKSPACE = 'workspace';

/**
 * Until when Slack asked the workspace's posts to wait, if that is still ahead of `now`.
 *
 * ```sql
 * select until, reason from slack_rate_limits where scope = 'workspace' and until > $now
 * ```
 */
export async function slackLimitedUntil(db: Kysely<Database>, now: Date): Promise<{ until: Date; reason: string } | undefined> {
  const row = await db
    .selectFrom('slack_rate_limits')
    .select(['until', 'reason'])
    .where('scope', '=', WORKSPACE)
    .where('until', '>', now.toISOString())
    .executeTakeFirst();
  return row ? { until: new Date(row.until), reason: row.reason } : undefined;
}

/**
 * Records that Slack asked to wait until `until`; a later time already kept stands.
 *
 * ```sql
 * insert into slack_rate_limits (scope, until, reason, updated_at) values ('workspace', $1, $2, $now)
 * on conflict (scope) do update set until = greatest(slack_rate_limits.until, excluded.until), …
 * ```
 */
export async function recordSlackLimit(db: Kysely<Database>, until: Date, reason: string, now: Date): Promise<void> {
  await db
    .insertInto('slack_rate_limits')
    .values({ scope: WORKSPACE, until: until.toISOString(), reason: reason.slice(0, 200), updated_at: now.toISOString() })
    .onConflict((oc) =>
      oc.column('scope').doUpdateSet({
        until: sql`greatest(slack_rate_limits.until, excluded.until)`,
        reason: sql`case when excluded.until > slack_rate_limits.until then excluded.reason else slack_rate_limits.reason end`,
        updated_at: now.toISOString(),
      }),
    )
    .execute();
}
