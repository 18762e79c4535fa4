import type { SqlMigration } from '../migration.js';

/**
 * Channel subscriptions to a board (contract §11, issue 30 item 2):
 * - `slack_board_subscriptions`: a channel that gets a board's card events; paused (like
 *   milestone summaries, migration 0006) when Slack refuses the channel.
 * - `slack_channel_queue`: the posts still to make, one per subscription and event, in the
 *   order they were queued (`position`); a row leaves once its post is sent (or given up).
 *   Exactly once is the claim table's (`slack_posts` kinds `card_parent`, `card_event`).
 * - Where the channel posts' reader of the events stands is its row in `event_consumers`
 *   (migration 0024), as for notifications.
 * - `slack_channel_pace`: the next moment each channel may take a post (one a second, as
 *   Slack asks), shared by every worker.
 */
export const channelSubscriptions: SqlMigration = {
  name: '0025-channel-subscriptions',
  up: [
    `create table slack_board_subscriptions (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      board_id text not null references boards(id) on delete cascade,
      channel_id text not null,
      created_by text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      paused_at timestamptz,
      paused_reason text,
      unique (org_id, board_id, channel_id)
    )`,
    `create index slack_board_subscriptions_channel on slack_board_subscriptions (org_id, channel_id)`,
    `create table slack_channel_queue (
      position bigint generated always as identity primary key,
      subscription_id text not null references slack_board_subscriptions(id) on delete cascade,
      org_id text not null,
      channel_id text not null,
      card_id text not null,
      event_id text not null,
      created_at timestamptz not null default now(),
      unique (subscription_id, event_id)
    )`,
    `create index slack_channel_queue_channel on slack_channel_queue (channel_id, position)`,
    `create table slack_channel_pace (
      channel_id text primary key,
      next_at timestamptz not null
    )`,
    `alter table slack_posts drop constraint slack_posts_kind_check`,
    `alter table slack_posts add constraint slack_posts_kind_check check (kind in ('todo_reminder','todo_digest','milestone_summary','notification_dm','card_parent','card_event'))`,
  ],
};
