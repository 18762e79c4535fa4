import type { SqlMigration } from '../migration.js';

/**
 * Where teammates work (contract §6):
 * - `members.reminder_hour`: the member's own local hour for due-todo reminders (0 to 23);
 *   null keeps `REMINDER_HOUR`.
 * - `todos.source_url`: the Slack message a todo was made from (the `create_todo` shortcut
 *   keeps its permalink), or any http(s) link given through /v1.
 * - `slack_posts` kind `todo_digest`: the one reminder message per member and local day
 *   (subject the member, period the local date). Each todo listed in it still has its own
 *   `todo_reminder` row per due date, which is what keeps a todo to one reminder per date.
 */
export const slackHome: SqlMigration = {
  name: '0011-slack-home',
  up: [
    `alter table members add column reminder_hour smallint check (reminder_hour between 0 and 23)`,
    `alter table todos add column source_url text`,
    `alter table slack_posts drop constraint slack_posts_kind_check`,
    `alter table slack_posts add constraint slack_posts_kind_check check (kind in ('todo_reminder','todo_digest','milestone_summary'))`,
  ],
};
