import type { SqlMigration } from '../migration.js';

/**
 * What the background jobs posted to Slack, one row per message that must go out once:
 * a due-todo reminder per (todo, due date), a milestone summary per (subscription, period).
 *
 * A row is the claim and the record in one: `sending` with a lease while a worker posts it,
 * `sent` with the channel and message ts once Slack took it, `retry` after Slack refused it
 * (lease = when to try again), `failed` after the last attempt. `unsure` is set when a
 * claim takes over a row left in `sending` (its worker crashed or lost the answer): that
 * message may be in Slack already, so the channel's history is checked before posting.
 * No foreign key to todos or subscriptions: the subject is a todo or a subscription by kind.
 */
export const jobs: SqlMigration = {
  name: '0005-jobs',
  up: [
    `create table slack_posts (
      kind text not null check (kind in ('todo_reminder','milestone_summary')),
      subject_id text not null,
      period text not null,
      org_id text not null references organizations(id) on delete cascade,
      state text not null check (state in ('sending','retry','sent','failed')),
      attempts integer not null default 0,
      unsure boolean not null default false,
      lease_until timestamptz,
      channel_id text,
      message_ts text,
      sent_at timestamptz,
      last_error text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (kind, subject_id, period)
    )`,
    `create index slack_posts_updated on slack_posts (updated_at)`,
  ],
};
