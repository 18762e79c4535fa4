import type { SqlMigration } from '../migration.js';

/**
 * GitHub (contract §12): pull requests that name a card's ref are linked to it and move it.
 *
 * - `members.github_login`: the GitHub user a member is, unique per organization whatever its
 *   case (GitHub's logins are case-insensitive), so a delivery's sender names one member.
 * - `github_deliveries`: each `X-GitHub-Delivery` once, inserted in the transaction that
 *   applies the delivery, so a redelivery finds it and does nothing twice.
 * - `github_links`: one row per card and pull request; `updated_at` is the pull request's, and
 *   a delivery older than the row changes nothing (GitHub does not deliver in order).
 * - `card_branch_name(prefix, number, title)`: the card's `branch_name`, for reads whose JSON
 *   Postgres builds (`cardJson`); `branchName` in src/domain/branch-name.ts is the same rule,
 *   and a test holds the two equal. Only ASCII letters are lowered (`translate`), so the
 *   database's collation cannot change the answer.
 */
export const github: SqlMigration = {
  name: '0026-github',
  up: [
    `alter table members add column github_login text`,
    `create unique index members_org_github on members (org_id, lower(github_login)) where github_login is not null`,
    `create table github_deliveries (
      delivery_id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      event text not null,
      received_at timestamptz not null default now()
    )`,
    `create index github_deliveries_received on github_deliveries (received_at)`,
    `create table github_links (
      org_id text not null references organizations(id) on delete cascade,
      card_id text not null references cards(id) on delete cascade,
      repository text not null,
      number integer not null,
      url text not null,
      title text not null,
      state text not null check (state in ('open', 'draft', 'merged', 'closed')),
      author_login text,
      updated_at timestamptz not null,
      created_at timestamptz not null default now(),
      primary key (card_id, repository, number)
    )`,
    `create index github_links_pull on github_links (org_id, repository, number)`,
    `create function card_branch_name(prefix text, number integer, title text)
      returns text language sql immutable parallel safe as $$
      select case when length(f) <= 60 then f
        else rtrim(case when d > 0 then left(f, 40 + d - 1) else left(f, 60) end, '-') end
      from (select f, case when strpos(reverse(substr(f, 41, 21)), '-') = 0 then 0
          else length(substr(f, 41, 21)) - strpos(reverse(substr(f, 41, 21)), '-') + 1 end as d
        from (select lower(prefix) || '-' || number::text
            || coalesce('-' || nullif(trim(both '-' from regexp_replace(
              translate(title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), '[^a-z0-9]+', '-', 'g')), ''), '') as f) s) t
    $$`,
  ],
};
