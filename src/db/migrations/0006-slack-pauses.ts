import type { SqlMigration } from '../migration.js';

/**
 * A subscription Slack will not let the bot post to (the channel was archived or deleted,
 * or the bot was removed from it) is paused instead of failing every period: the summaries
 * job skips it, its subscriber is told once by DM, and subscribing again resumes it.
 */
export const slackPauses: SqlMigration = {
  name: '0006-slack-pauses',
  up: [
    `alter table slack_subscriptions add column paused_at timestamptz`,
    `alter table slack_subscriptions add column paused_reason text`,
  ],
};
