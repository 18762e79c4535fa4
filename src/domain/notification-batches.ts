import { sql, type Kysely } from 'kysely';
import type { Database, NotificationKind } from '../db/schema.js';
import { toIso } from './time.js';

/**
 * Notifications into DMs: all of a member's notifications within a minute make one direct
 * message. A member's pending notifications become a batch once the oldest of them is a
 * minute old (`GROUP_MS`); the batch is the DM's `slack_posts` period (kind
 * `notification_dm`, subject the member), so it is posted exactly once like a reminder.
 */

/** How long a member's first pending notification waits for others to join its DM. */
export const GROUP_MS = 60_000;
/** Notifications older than this that never went out (the member was not linked) stay in App Home only. */
export const DM_MAX_AGE_MS = 24 * 3_600_000;

/**
 * Puts every linked member's pending notifications into a batch once the oldest is a minute
 * old: the batch is named by its first notification. Two workers at once: the second finds
 * them batched (`batch is null` re-checked on the locked rows) and batches nothing.
 *
 * ```sql
 * update notifications n set batch = d.batch
 * from (select member_id, (array_agg(id order by created_at, id))[1] as batch from notifications
 *       where org_id = $1 and batch is null and delivered_at is null and created_at > $since
 *       group by member_id having min(created_at) <= $now - 1 minute) d join members m …
 * where n.member_id = d.member_id and n.batch is null and n.delivered_at is null and n.created_at > $since
 * ```
 */
export async function batchDueNotifications(db: Kysely<Database>, orgId: string, now: Date): Promise<number> {
  const since = new Date(now.getTime() - DM_MAX_AGE_MS).toISOString();
  const due = new Date(now.getTime() - GROUP_MS).toISOString();
  const result = await sql`
    update notifications n set batch = d.batch
    from (
      select p.member_id, (array_agg(p.id order by p.created_at, p.id))[1] as batch
      from notifications p
      join members m on m.id = p.member_id and m.slack_user_id is not null
      where p.org_id = ${orgId} and p.batch is null and p.delivered_at is null and p.created_at > ${since}::timestamptz
      group by p.member_id
      having min(p.created_at) <= ${due}::timestamptz
    ) d
    where n.member_id = d.member_id and n.batch is null and n.delivered_at is null and n.created_at > ${since}::timestamptz`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** A batch whose DM has not gone out, with where it goes. */
export interface PendingBatch {
  memberId: string;
  batch: string;
  slackUserId: string;
  /** The member's DM channel as kept from an earlier message, if any. */
  dmChannel: string | null;
}

/**
 * Batches not delivered yet (new ones, and those whose post failed or was interrupted: the
 * claim table says which may be tried now).
 *
 * ```sql
 * select distinct n.member_id, n.batch, m.slack_user_id, d.channel_id from notifications n join members m …
 * left join slack_dm_channels d on d.slack_user_id = m.slack_user_id
 * where n.org_id = $1 and n.batch is not null and n.delivered_at is null and n.created_at > $since
 * ```
 */
export async function pendingBatches(db: Kysely<Database>, orgId: string, now: Date): Promise<PendingBatch[]> {
  const since = new Date(now.getTime() - DM_MAX_AGE_MS - GROUP_MS).toISOString();
  const rows = await db
    .selectFrom('notifications as n')
    .innerJoin('members as m', 'm.id', 'n.member_id')
    .leftJoin('slack_dm_channels as d', 'd.slack_user_id', 'm.slack_user_id')
    .select(['n.member_id', 'n.batch', 'm.slack_user_id', 'd.channel_id'])
    .distinct()
    .where('n.org_id', '=', orgId)
    .where('n.batch', 'is not', null)
    .where('n.delivered_at', 'is', null)
    .where('n.created_at', '>', since)
    .where('m.slack_user_id', 'is not', null)
    .orderBy('n.member_id')
    .orderBy('n.batch')
    .execute();
  return rows.map((r) => ({ memberId: r.member_id, batch: r.batch!, slackUserId: r.slack_user_id!, dmChannel: r.channel_id }));
}

/** One notification as a DM or App Home shows it. */
export interface NotificationItem {
  id: string;
  kind: NotificationKind;
  card_id: string | null;
  card_ref: string | null;
  card_title: string;
  actor_name: string;
  detail: string;
  created_at: string;
  read_at: string | null;
}

export const notificationItemColumns = ['id', 'kind', 'card_id', 'card_ref', 'card_title', 'actor_name', 'detail', 'created_at', 'read_at'] as const;

export function presentItem(row: NotificationItem): NotificationItem {
  return { ...row, created_at: toIso(row.created_at), read_at: row.read_at === null ? null : toIso(row.read_at) };
}

/** The notifications of one batch, oldest first. */
export async function batchItems(db: Kysely<Database>, memberId: string, batch: string): Promise<NotificationItem[]> {
  const rows = await db
    .selectFrom('notifications')
    .select(notificationItemColumns)
    .where('member_id', '=', memberId)
    .where('batch', '=', batch)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(presentItem);
}

/** Records a batch's DM as delivered (in the transaction that records its post sent). */
export async function markBatchDelivered(db: Kysely<Database>, memberId: string, batch: string, now: Date): Promise<void> {
  await db.updateTable('notifications').set({ delivered_at: now.toISOString() }).where('member_id', '=', memberId).where('batch', '=', batch).execute();
}
