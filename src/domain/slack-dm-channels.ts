import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Each Slack user's direct-message channel with the bot (table `slack_dm_channels`, migration
 * 0017), as `conversations.open` answered it: opened once, then reused by every reminder, so
 * a day's reminders cost no Tier 3 call per member (about 50 a minute).
 */

/**
 * Keeps the DM channel of a Slack user (the latest answer wins).
 *
 * ```sql
 * insert into slack_dm_channels (slack_user_id, channel_id, opened_at) values ($1, $2, $3)
 * on conflict (slack_user_id) do update set channel_id = excluded.channel_id, opened_at = excluded.opened_at
 * ```
 */
export async function keepDmChannel(db: Kysely<Database>, slackUserId: string, channelId: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await db
    .insertInto('slack_dm_channels')
    .values({ slack_user_id: slackUserId, channel_id: channelId, opened_at: at })
    .onConflict((oc) => oc.column('slack_user_id').doUpdateSet({ channel_id: channelId, opened_at: at }))
    .execute();
}

/** The kept DM channel of a Slack user, if any. */
export async function keptDmChannel(db: Kysely<Database>, slackUserId: string): Promise<string | undefined> {
  const row = await db.selectFrom('slack_dm_channels').select('channel_id').where('slack_user_id', '=', slackUserId).executeTakeFirst();
  return row?.channel_id;
}

/** Forgets a DM channel a post to it failed in: the next post opens it again. Only if it is still the one kept. */
export async function forgetDmChannel(db: Kysely<Database>, slackUserId: string, channelId: string): Promise<void> {
  await db.deleteFrom('slack_dm_channels').where('slack_user_id', '=', slackUserId).where('channel_id', '=', channelId).execute();
}
