import type { SqlMigration } from '../migration.js';

/**
 * After a backup is restored, Slack may already hold messages the restored `slack_posts` does
 * not know about (posted after the backup was taken): their rows are missing, and a new claim
 * of one would post it again. `tack restore-check` records a fence: until `until`, every new
 * claim row is made `unsure`, and its first claim time is taken back to `history_since` (no
 * later than the backup), so the job reads the conversation's history from there before it
 * posts, and records the message it finds instead of sending another (jobs/post-once.ts).
 *
 * A trigger, so that every claim (`claimPosts`, whatever kind of post) obeys the fence
 * without each caller knowing of restores. Claims of rows that exist follow their own
 * state, which `tack restore-check` sets to `sending` (unsure) for every pending one.
 */
export const restoreFences: SqlMigration = {
  name: '0018-restore-fences',
  up: [
    `create table slack_post_fences (
      id bigserial primary key,
      history_since timestamptz not null,
      until timestamptz not null,
      created_at timestamptz not null default now()
    )`,
    `create function slack_posts_fenced() returns trigger language plpgsql as $$
    declare
      since timestamptz;
    begin
      select min(f.history_since) into since from slack_post_fences f where f.until > now();
      if since is not null then
        new.unsure := true;
        new.created_at := least(new.created_at, since);
      end if;
      return new;
    end
    $$`,
    `create trigger slack_posts_fenced before insert on slack_posts for each row execute function slack_posts_fenced()`,
  ],
};
