import type { SqlMigration } from '../migration.js';

/**
 * Personal notifications (contract §11, issue 30 items 3 and 5):
 *
 * - `event_consumers`: where each consumer of the events table stands, one row per consumer
 *   (`notifications`, later channel subscriptions). `cursor` is opaque text made by
 *   `feedCursor` (today an event's `seq`); it moves in the transaction that stores what the
 *   consumer made of the events, and the row's lock (`for update`) makes one process at a time
 *   consume, so every event is consumed exactly once.
 * - `notifications`: one row per recipient, kind and event (unique, so a replayed batch makes
 *   none twice), with what the DM and App Home show of it. `batch` is set when the recipient's
 *   DM is put together (all their notifications of a minute), and is the DM's `slack_posts`
 *   period (kind `notification_dm`, subject the member); `delivered_at` once that DM was sent;
 *   `read_at` once the member opened App Home or clicked the DM's button.
 * - `members.notifications`: the kinds a member turned off or on (`{"assigned": false}`);
 *   a kind not named is on.
 * - `boards.created_by`: who made the board (an agent's refused move on a card nobody is
 *   assigned asks them); boards made before it are read from their `board.created` event.
 */
export const notifications: SqlMigration = {
  name: '0024-notifications',
  up: [
    `alter table members add column notifications jsonb not null default '{}'::jsonb`,
    `alter table boards add column created_by text`,
    `update boards b set created_by = (
       select e.actor_member_id from events e
       where e.org_id = b.org_id and e.subject_type = 'board' and e.subject_id = b.id and e.type = 'board.created'
       order by e.seq limit 1)`,
    `create table event_consumers (
      name text primary key,
      cursor text not null,
      updated_at timestamptz not null default now()
    )`,
    `create table notifications (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      member_id text not null references members(id) on delete cascade,
      kind text not null check (kind in ('assigned','mentioned','card_activity','agent_requests')),
      event_id text not null,
      card_id text,
      card_ref text,
      card_title text not null default '',
      actor_name text not null,
      detail text not null,
      created_at timestamptz not null,
      batch text,
      delivered_at timestamptz,
      read_at timestamptz,
      unique (member_id, kind, event_id)
    )`,
    `create index notifications_member on notifications (member_id, created_at desc, id desc)`,
    `create index notifications_pending on notifications (member_id, created_at) where delivered_at is null`,
    `create index notifications_unread on notifications (member_id) where read_at is null`,
    // The notifications consumer starts after the events there are now: nobody is told of the past.
    `insert into event_consumers (name, cursor) select 'notifications', coalesce((select xid::text || ':' || seq::text from events order by xid desc, seq desc limit 1), pg_current_xact_id()::text || ':0')`,
    `alter table slack_posts drop constraint slack_posts_kind_check`,
    `alter table slack_posts add constraint slack_posts_kind_check check (kind in ('todo_reminder','todo_digest','milestone_summary','notification_dm'))`,
  ],
};
