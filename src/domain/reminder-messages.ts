import { sql, type Kysely } from 'kysely';
import type { Database, Priority } from '../db/schema.js';

/**
 * The day's reminder message in Slack as tack sent it (a `todo_digest` claim) and the todos it
 * lists, read afresh so a Done click rebuilds the message from the database, not from the
 * click's snapshot.
 */

/** A todo a sent reminder message lists, in its state now. */
export interface ListedTodo {
  id: string;
  title: string;
  priority: Priority;
  due_on: string | null;
  source_url: string | null;
  done: boolean;
  /** The due date it was reminded for in this message. */
  period: string;
  card_ref: string | null;
  card_title: string | null;
}

/** The day's reminder message at a channel and ts: whose (member), which local day, which organization. */
export interface ReminderMessage {
  orgId: string;
  memberId: string;
  /** The member's local date the message is for. */
  day: string;
}

/**
 * The day's reminder message (`todo_digest`) that was sent as `channel`/`ts`, if tack knows it.
 *
 * ```sql
 * select org_id, subject_id, period from slack_posts where kind = 'todo_digest' and state = 'sent' and channel_id = $1 and message_ts = $2
 * ```
 */
export async function reminderMessageAt(db: Kysely<Database>, channel: string, ts: string): Promise<ReminderMessage | undefined> {
  const row = await db
    .selectFrom('slack_posts')
    .select(['org_id', 'subject_id', 'period'])
    .where('kind', '=', 'todo_digest')
    .where('state', '=', 'sent')
    .where('channel_id', '=', channel)
    .where('message_ts', '=', ts)
    .executeTakeFirst();
  return row ? { orgId: row.org_id, memberId: row.subject_id, day: row.period } : undefined;
}

/**
 * The todos a sent reminder message lists (their `todo_reminder` rows point at it), each once
 * and in its state now. A todo reminded in it for two due dates (due yesterday, caught up in
 * today's message, then re-dated to today) has two rows; the one for its current due date
 * wins, else the latest.
 *
 * ```sql
 * select distinct on (t.id) t.*, p.period, card ref and title from slack_posts p join todos t on t.id = p.subject_id …
 * where p.kind = 'todo_reminder' and p.state = 'sent' and p.org_id = $org and p.channel_id = $1 and p.message_ts = $2
 * order by t.id, (p.period = t.due_on::text) desc, p.period desc
 * ```
 */
export async function todosListedIn(db: Kysely<Database>, orgId: string, channel: string, ts: string): Promise<ListedTodo[]> {
  const { rows } = await sql<ListedTodo>`
    select distinct on (t.id) t.id, t.title, t.priority, t.due_on::text as due_on, t.source_url, t.done, p.period,
           b.ref_prefix || '-' || c.number as card_ref, c.title as card_title
    from slack_posts p
    join todos t on t.id = p.subject_id
    join members m on m.id = t.member_id and m.org_id = p.org_id
    left join cards c on c.id = t.card_id
    left join boards b on b.id = c.board_id
    where p.kind = 'todo_reminder' and p.state = 'sent' and p.org_id = ${orgId} and p.channel_id = ${channel} and p.message_ts = ${ts}
    order by t.id, (p.period = t.due_on::text) desc, p.period desc`.execute(db);
  return rows;
}
