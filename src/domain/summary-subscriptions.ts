import type { Kysely } from 'kysely';
import type { Database, Role, SlackCadence } from '../db/schema.js';
import { markSent, type Claim } from './slack-posts.js';

/** A channel's subscription to a milestone's summaries, with the member who subscribed it (null fields when gone). */
export interface SummarySubscription {
  id: string;
  milestone_ref: string;
  channel_id: string;
  cadence: SlackCadence;
  tz: string;
  last_sent_period: string | null;
  member_id: string | null;
  name: string | null;
  email: string | null;
  role: Role | null;
  member_tz: string | null;
  slack_user_id: string | null;
}

/**
 * The organization's subscriptions that are not paused, each with its subscriber.
 *
 * ```sql
 * select s.id, s.milestone_ref, s.channel_id, s.cadence, s.tz, s.last_sent_period, m.id, m.name, m.email, m.role, m.tz, m.slack_user_id
 * from slack_subscriptions s left join members m on m.id = s.created_by and m.org_id = s.org_id
 * where s.org_id = $1 and s.paused_at is null order by s.id
 * ```
 */
export async function activeSubscriptions(db: Kysely<Database>, orgId: string): Promise<SummarySubscription[]> {
  return db
    .selectFrom('slack_subscriptions as s')
    .leftJoin('members as m', (j) => j.onRef('m.id', '=', 's.created_by').onRef('m.org_id', '=', 's.org_id'))
    .select(['s.id', 's.milestone_ref', 's.channel_id', 's.cadence', 's.tz', 's.last_sent_period'])
    .select(['m.id as member_id', 'm.name', 'm.email', 'm.role', 'm.tz as member_tz', 'm.slack_user_id'])
    .where('s.org_id', '=', orgId)
    .where('s.paused_at', 'is', null)
    .orderBy('s.id')
    .execute();
}

/**
 * Records a period's summary as sent: its claim's row, and the subscription's
 * `last_sent_period`, in the caller's transaction (`trx`), so neither is kept without the other.
 */
export async function recordSummarySent(
  trx: Kysely<Database>,
  sent: { claim: Claim; channelId: string; ts: string; orgId: string; subscriptionId: string; period: string },
  now: Date,
): Promise<void> {
  await markSent(trx, [{ claim: sent.claim, channelId: sent.channelId, ts: sent.ts }], now);
  await trx.updateTable('slack_subscriptions').set({ last_sent_period: sent.period }).where('org_id', '=', sent.orgId).where('id', '=', sent.subscriptionId).execute();
}
