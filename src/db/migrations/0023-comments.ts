import type { SqlMigration } from '../migration.js';

/**
 * Cards people talk about (contract §11): a card's `description` (Markdown, null: none) and
 * its comments.
 *
 * - `description` is read beside the stored JSON parts of 0013 (`cardJson` puts it in), so
 *   those generated columns are not recomputed.
 * - A comment's author is a member; removing the member keeps the comment (`author_member_id`
 *   set null) under the name it was written with (`author_name`). `author_agent`: written with
 *   an agent token.
 * - A card's discussion is read oldest first, keyset on `(created_at, seq)`: `seq` keeps two
 *   comments written in one millisecond (or under a test's fixed clock) in the order they
 *   were written. The index serves it, and counting a card's comments.
 */
export const comments: SqlMigration = {
  name: '0023-comments',
  up: [
    `alter table cards add column description text`,
    `create table comments (
      id text primary key,
      seq bigint generated always as identity,
      org_id text not null references organizations(id) on delete cascade,
      card_id text not null references cards(id) on delete cascade,
      author_member_id text references members(id) on delete set null,
      author_name text not null,
      author_agent boolean not null,
      body text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create index comments_card_created on comments (card_id, created_at, seq)`,
  ],
};
