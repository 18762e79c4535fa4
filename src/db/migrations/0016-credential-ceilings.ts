import type { SqlMigration } from '../migration.js';

/**
 * A credential never carries more than what made it (contract §9).
 *
 * - `role_ceiling` on tokens, sign-in links and sessions: the role of the member who made it
 *   for someone else; it acts with the lower of this and its member's current role (null: it
 *   follows its member's own role).
 * - `token_id` on sign-in links and sessions: the token whose request made the link (for a
 *   session, the link's): a session ends when that token is revoked or expires, and goes
 *   with it (cascade). `scopes` on both: the most the session may use (null: what the
 *   member's role allows).
 *
 * Tokens already made for another member get their maker's current role as ceiling (the
 * role they had when they made it is not kept anywhere); tokens whose maker is gone keep
 * none.
 */
export const credentialCeilings: SqlMigration = {
  name: '0016-credential-ceilings',
  up: [
    `alter table tokens add column role_ceiling text check (role_ceiling in ('owner','admin','member','viewer'))`,
    `update tokens set role_ceiling = makers.role from members makers
      where makers.id = tokens.created_by and makers.org_id = tokens.org_id and tokens.created_by <> tokens.member_id`,
    `alter table signin_links
      add column token_id text references tokens(id) on delete cascade,
      add column scopes text[],
      add column role_ceiling text check (role_ceiling in ('owner','admin','member','viewer'))`,
    `alter table sessions
      add column token_id text references tokens(id) on delete cascade,
      add column scopes text[],
      add column role_ceiling text check (role_ceiling in ('owner','admin','member','viewer'))`,
    `create index sessions_token on sessions (token_id) where token_id is not null`,
    `create index signin_links_token on signin_links (token_id) where token_id is not null`,
  ],
};
