import type { SqlMigration } from '../migration.js';

/**
 * The parts of each card's JSON that come from the card's own row, kept by Postgres beside it
 * (generated columns, as 0012 does for snippets), so a list joins stored text instead of
 * escaping every title and formatting two timestamps on each read (issue 14). The rest of a
 * card's JSON comes from other tables (the board's prefix and gate, criteria counts,
 * assignees, the milestone's ref) and is put in between by the read (`cardJson`,
 * `src/domain/card-query.ts`):
 *
 * - `json_body`: `,"board_id":…,"title":…,"workflow_status":…`
 * - `json_tail`: `,"created_at":…,"updated_at":…}`
 *
 * Immutable for the reasons 0012 gives (text in, a digits-only `to_char` template). A change
 * to what they write needs a new migration that recomputes the columns.
 */
export const cardJson: SqlMigration = {
  name: '0013-card-json',
  up: [
    `create function card_json_body(board_id text, title text, workflow_status text)
      returns text language sql immutable parallel safe as $$
      select ',' || substr(left(row_to_json(o)::text, -1), 2) from (select board_id as "board_id", title as "title",
        workflow_status as "workflow_status") o
    $$`,
    `create function card_json_tail(created_at timestamptz, updated_at timestamptz)
      returns text language sql immutable parallel safe as $$
      select ',' || substr(row_to_json(o)::text, 2) from (select
        to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "created_at",
        to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "updated_at") o
    $$`,
    `alter table cards
      add column json_body text generated always as (card_json_body(board_id, title, workflow_status)) stored,
      add column json_tail text generated always as (card_json_tail(created_at, updated_at)) stored`,
  ],
};
