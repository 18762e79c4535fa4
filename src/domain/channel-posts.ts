import { sql, type Kysely } from 'kysely';
import type { Database, Role } from '../db/schema.js';
import type { EventRow } from './events.js';

/**
 * Which events become which channel posts (board subscriptions, contract §11), and the
 * queue of posts still owed (table `slack_channel_queue`, migration 0025). Reading events
 * after a cursor is the consumer's business (jobs/event-consumers.ts); this file only says what
 * an event means for the subscribed channels.
 */

/** Event types a board subscription hears: the card's own, its criteria's and its comments'. */
const CARD_EVENT_PREFIXES = ['card.', 'criterion.', 'comment.'] as const;

/** Whether an event belongs in a card's thread: a card's, seen by the whole organization. */
export function isCardThreadEvent(e: Pick<EventRow, 'type' | 'card_id' | 'audience'>): boolean {
  return e.card_id !== null && e.audience === 'org' && CARD_EVENT_PREFIXES.some((p) => e.type.startsWith(p));
}

function boardOfData(data: unknown): string | null {
  if (data && typeof data === 'object' && 'board_id' in data && typeof data.board_id === 'string') return data.board_id;
  return null;
}

/**
 * Queues one post per active subscription of the event's board, in event order; an event
 * queued before (a reader that read it twice) is not queued again. The board is the card's
 * (from the event's data, else the card's row, else, for a deleted card, its last event that
 * had data). Returns how many posts were queued.
 *
 * ```sql
 * insert into slack_channel_queue (subscription_id, org_id, channel_id, card_id, event_id)
 * select s.id, s.org_id, s.channel_id, e.card_id, e.event_id from jsonb_to_recordset($1) e(...)
 * join slack_board_subscriptions s on s.org_id = e.org_id and s.board_id = coalesce(e.board_id, <card's board>) and s.paused_at is null
 * order by e.ord on conflict (subscription_id, event_id) do nothing
 * ```
 */
export async function queueChannelPosts(trx: Kysely<Database>, events: readonly EventRow[]): Promise<number> {
  const items = events.filter(isCardThreadEvent).map((e, ord) => ({
    ord,
    org_id: e.org_id,
    card_id: e.card_id,
    event_id: `evt_${e.seq}`,
    board_id: e.subject_type === 'card' ? boardOfData(e.data) : null,
  }));
  if (items.length === 0) return 0;
  const result = await sql`
    insert into slack_channel_queue (subscription_id, org_id, channel_id, card_id, event_id)
    select s.id, s.org_id, s.channel_id, e.card_id, e.event_id
    from jsonb_to_recordset(${JSON.stringify(items)}::jsonb) as e(ord int, org_id text, card_id text, event_id text, board_id text)
    join slack_board_subscriptions s on s.org_id = e.org_id and s.paused_at is null and s.board_id = coalesce(
      e.board_id,
      (select c.board_id from cards c where c.org_id = e.org_id and c.id = e.card_id),
      (select ev.data->>'board_id' from events ev
        where ev.org_id = e.org_id and ev.card_id = e.card_id and ev.subject_type = 'card' and ev.data is not null
        order by ev.seq desc limit 1))
    order by e.ord, s.id
    on conflict (subscription_id, event_id) do nothing`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

/** A post a subscribed channel is owed, with the subscription's subscriber (null fields when gone). */
export interface QueuedPost {
  position: string;
  subscription_id: string;
  org_id: string;
  channel_id: string;
  card_id: string;
  event_id: string;
  board_slug: string;
  member_id: string | null;
  name: string | null;
  email: string | null;
  role: Role | null;
  tz: string | null;
  slack_user_id: string | null;
}

/**
 * The oldest posts owed by the organization's subscriptions that are not paused, in queue
 * order, at most `limit`.
 *
 * ```sql
 * select q.*, b.slug, m.* from slack_channel_queue q join slack_board_subscriptions s on s.id = q.subscription_id and s.paused_at is null
 * join boards b on b.id = s.board_id left join members m on m.id = s.created_by and m.org_id = s.org_id
 * where q.org_id = $1 order by q.position limit $2
 * ```
 */
export async function queuedPosts(db: Kysely<Database>, orgId: string, limit: number): Promise<QueuedPost[]> {
  return db
    .selectFrom('slack_channel_queue as q')
    .innerJoin('slack_board_subscriptions as s', (j) => j.onRef('s.id', '=', 'q.subscription_id').on('s.paused_at', 'is', null))
    .innerJoin('boards as b', 'b.id', 's.board_id')
    .leftJoin('members as m', (j) => j.onRef('m.id', '=', 's.created_by').onRef('m.org_id', '=', 's.org_id'))
    .select(['q.position', 'q.subscription_id', 'q.org_id', 'q.channel_id', 'q.card_id', 'q.event_id', 'b.slug as board_slug'])
    .select(['m.id as member_id', 'm.name', 'm.email', 'm.role', 'm.tz', 'm.slack_user_id'])
    .where('q.org_id', '=', orgId)
    .orderBy('q.position')
    .limit(limit)
    .execute();
}

/** Takes a post off the queue: sent, recovered, or given up by the claim table. */
export async function dequeuePost(db: Kysely<Database>, position: string): Promise<void> {
  await db.deleteFrom('slack_channel_queue').where('position', '=', position).execute();
}

/** The events of the given ids (`evt_<seq>`), by id; ids of pruned events are missing. */
export async function eventsById(db: Kysely<Database>, orgId: string, ids: readonly string[]): Promise<Map<string, EventRow>> {
  const seqs = ids.flatMap((id) => (/^evt_(\d+)$/.exec(id) ? [id.slice(4)] : []));
  if (seqs.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('seq', 'in', seqs.map((s) => sql<string>`cast(${s} as bigint)`))
    .execute();
  return new Map(rows.map((r) => [`evt_${r.seq}`, r]));
}

/**
 * The next moment `channel` may take a post, reserved: one post a second per channel, as
 * Slack asks; a burst is spread out (each reservation a second after the last), not dropped.
 * Shared by every worker through Postgres.
 *
 * ```sql
 * insert into slack_channel_pace (channel_id, next_at) values ($1, $now + 1 s)
 * on conflict (channel_id) do update set next_at = greatest(slack_channel_pace.next_at, $now) + 1 s
 * returning next_at - 1 s
 * ```
 */
export async function reserveChannelSlot(db: Kysely<Database>, channelId: string, now: Date, spacingMs: number): Promise<Date> {
  const at = now.toISOString();
  const gap = `${spacingMs} milliseconds`;
  const { rows } = await sql<{ slot: string | Date }>`
    insert into slack_channel_pace as p (channel_id, next_at) values (${channelId}, ${at}::timestamptz + ${gap}::interval)
    on conflict (channel_id) do update set next_at = greatest(p.next_at, ${at}::timestamptz) + ${gap}::interval
    returning p.next_at - ${gap}::interval as slot`.execute(db);
  return new Date(rows[0]!.slot);
}

/** Names and Slack ids of members, by id (a card's assignees, as a thread's parent shows them). */
export async function memberLabels(db: Kysely<Database>, orgId: string, ids: readonly string[]): Promise<Map<string, { name: string; slack_user_id: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('members').select(['id', 'name', 'slack_user_id']).where('org_id', '=', orgId).where('id', 'in', [...ids]).execute();
  return new Map(rows.map((r) => [r.id, { name: r.name, slack_user_id: r.slack_user_id }]));
}
