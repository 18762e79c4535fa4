import type { SqlMigration } from '../migration.js';

/**
 * Slack, as Slack itself would test it (issue 27):
 * - `slack_connect_links`: `/tack connect`'s one-time links. A Slack user asks for one in
 *   Slack; a signed-in web session confirms it, linking that Slack user to the session's
 *   member. Kept as the code's SHA-256 only, valid 15 minutes, used once (`used_at` set by the
 *   statement that checks it). The Slack user's name is what the confirm page shows.
 * - `slack_dm_channels`: the direct-message channel of each Slack user with the bot, as
 *   `conversations.open` (Tier 3, about 50 a minute) answered it once, so the daily reminders
 *   do not open it again. Keyed by the Slack user, not the member: a DM belongs to the Slack
 *   user, whichever member they are linked to. Filled from the reminders already sent where
 *   that is certain (the member's link has not changed since: their row not updated after).
 * - `slack_rate_limits`: Slack's Retry-After, kept for the whole workspace, so every worker
 *   and every later sweep waits it out, not just the sweep that was told.
 */
export const slackLinks: SqlMigration = {
  name: '0017-slack-links',
  up: [
    `create table slack_connect_links (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      slack_user_id text not null,
      slack_user_name text,
      code_hash text not null unique,
      expires_at timestamptz not null,
      used_at timestamptz,
      used_by text,
      created_at timestamptz not null default now()
    )`,
    `create index slack_connect_links_expires on slack_connect_links (expires_at)`,
    `create table slack_dm_channels (
      slack_user_id text primary key,
      channel_id text not null,
      opened_at timestamptz not null default now()
    )`,
    `insert into slack_dm_channels (slack_user_id, channel_id, opened_at)
      select distinct on (m.slack_user_id) m.slack_user_id, p.channel_id, p.sent_at
      from slack_posts p join members m on m.id = p.subject_id
      where p.kind = 'todo_digest' and p.state = 'sent' and p.channel_id is not null and p.sent_at is not null
        and m.slack_user_id is not null and p.sent_at > m.updated_at
      order by m.slack_user_id, p.sent_at desc`,
    `create table slack_rate_limits (
      scope text primary key,
      until timestamptz not null,
      reason text not null,
      updated_at timestamptz not null default now()
    )`,
  ],
};
