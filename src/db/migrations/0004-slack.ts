import type { SqlMigration } from '../migration.js';

/**
 * Slack: deliveries already seen (so a retry never acts twice, across restarts and
 * processes) and channel subscriptions to milestone summaries.
 *
 * Subscriptions name the milestone by its ref, without a foreign key: milestones arrive in
 * another migration, and a subscription to a milestone that is later renamed or deleted is
 * simply skipped by the summaries job.
 */
export const slack: SqlMigration = {
  name: '0004-slack',
  up: [
    `create table slack_deliveries (
      identity text primary key,
      kind text not null check (kind in ('event','command','action','other')),
      received_at timestamptz not null default now()
    )`,
    `create index slack_deliveries_received on slack_deliveries (received_at)`,
    `create table slack_subscriptions (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      milestone_ref text not null,
      channel_id text not null,
      cadence text not null check (cadence in ('daily','weekly')),
      tz text not null,
      created_by text not null,
      last_sent_period text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (org_id, milestone_ref, channel_id)
    )`,
    `create index slack_subscriptions_cadence on slack_subscriptions (cadence, org_id)`,
  ],
};
