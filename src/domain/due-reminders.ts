import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database, Priority } from '../db/schema.js';
import { reminderDueDates } from './local-time.js';

/** A todo whose reminder is due, with its owner and card. */
export interface DueTodo {
  id: string;
  title: string;
  priority: Priority;
  due_on: string;
  source_url: string | null;
  member_id: string;
  slack_user_id: string | null;
  tz: string | null;
  card_ref: string | null;
  card_title: string | null;
  /** The owner's DM channel as kept from an earlier reminder; null until one was opened. */
  dm_channel: string | null;
}

// Candidates read per sweep (the rest wait for the next one).
const MAX_PER_SWEEP = 50_000;

/** Which due dates are due for reminders for each time zone and reminder hour the organization's members use. */
async function dueDatesByZone(db: Kysely<Database>, orgId: string, now: Date, defaultHour: number): Promise<Expression<SqlBool>[]> {
  const zones = await db
    .selectFrom('members')
    .select([sql<string>`coalesce(tz, 'UTC')`.as('tz'), sql<number>`coalesce(reminder_hour, ${defaultHour})`.as('hour')])
    .distinct()
    .where('org_id', '=', orgId)
    .execute();
  return zones.map(({ tz, hour }) => {
    const { from, through } = reminderDueDates(now, tz, Number(hour));
    return sql<SqlBool>`(coalesce(m.tz, 'UTC') = ${tz} and coalesce(m.reminder_hour, ${defaultHour}) = ${hour} and t.due_on between ${from}::date and ${through}::date)`;
  });
}

/**
 * Open todos of the organization's members whose reminder is due at `now` (at each member's
 * own reminder hour, else `defaultHour`, in their zone) and neither sent, given up, nor held
 * by another worker's live lease.
 *
 * ```sql
 * select t.*, m.slack_user_id, m.tz, card ref and title, d.channel_id from todos t join members m on m.id = t.member_id
 * left join slack_dm_channels d on d.slack_user_id = m.slack_user_id
 * left join slack_posts p on p.kind = 'todo_reminder' and p.subject_id = t.id and p.period = t.due_on::text
 * where m.org_id = $1 and not t.done and ((m.tz = $zone and m.reminder_hour = $hour and t.due_on between $from and $through) or …)
 *   and (p.subject_id is null or (p.state in ('sending','retry') and (p.lease_until is null or p.lease_until <= $now)))
 * ```
 */
export async function dueReminderTodos(db: Kysely<Database>, orgId: string, now: Date, defaultHour: number): Promise<DueTodo[]> {
  const zones = await dueDatesByZone(db, orgId, now, defaultHour);
  if (zones.length === 0) return [];
  const { rows } = await sql<DueTodo>`
    select t.id, t.title, t.priority, t.due_on::text as due_on, t.source_url, m.id as member_id, m.slack_user_id, m.tz,
           b.ref_prefix || '-' || c.number as card_ref, c.title as card_title, d.channel_id as dm_channel
    from todos t
    join members m on m.id = t.member_id
    left join slack_dm_channels d on d.slack_user_id = m.slack_user_id
    left join slack_posts p on p.kind = 'todo_reminder' and p.subject_id = t.id and p.period = t.due_on::text
    left join cards c on c.id = t.card_id
    left join boards b on b.id = c.board_id
    where m.org_id = ${orgId} and not t.done and t.due_on is not null
      and (${sql.join(zones, sql` or `)})
      and (p.subject_id is null or (p.state in ('sending', 'retry') and (p.lease_until is null or p.lease_until <= ${now.toISOString()}::timestamptz)))
    order by m.id, t.due_on desc, t.id
    limit ${sql.lit(MAX_PER_SWEEP)}`.execute(db);
  return rows;
}

/** The id of the organization called `slug` (the Slack workspace's, `SLACK_ORG`), if there is one. */
export async function organizationIdBySlug(db: Kysely<Database>, slug: string): Promise<string | undefined> {
  const org = await db.selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst();
  return org?.id;
}
