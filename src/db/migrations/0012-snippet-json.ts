import type { SqlMigration } from '../migration.js';

/**
 * Each snippet's JSON, kept by Postgres beside the row (generated columns, like `search`), so a
 * read joins stored text instead of building every row's JSON anew (issue 14: half the list
 * statement's cost in Postgres). The answer's `public_url` lies between the two parts: it
 * depends on the link table and on `PUBLIC_BASE_URL`, so a read puts it in
 * (`snippetJsonAt`, `src/domain/snippets/rows.ts`):
 *
 * - `json_head`: `{"id":…,"org_id":…,"type":…,"name":…,"slug":…,"category":…,"tags":…,"visibility":…,"version":…`
 * - `json_tail`: `"body":…,"created_at":…,"updated_at":…}`
 *
 * The functions are declared immutable although `row_to_json` and `to_char` are marked stable:
 * those are stable for any type or template (some types' text depends on settings, `TM`
 * patterns on the locale), but over text, text[] and integer, and a template of digits
 * only, the result depends on the input alone. A change to what they write needs a new
 * migration that recomputes the columns (dropping and adding them).
 */
export const snippetJson: SqlMigration = {
  name: '0012-snippet-json',
  up: [
    `create function snippet_json_head(id text, org_id text, type text, name text, slug text, category text, tags text[], visibility text, version integer)
      returns text language sql immutable parallel safe as $$
      select left(row_to_json(o)::text, -1) from (select id as "id", org_id as "org_id", type as "type", name as "name",
        slug as "slug", category as "category", tags as "tags", visibility as "visibility", version as "version") o
    $$`,
    `create function snippet_json_tail(body text, created_at timestamptz, updated_at timestamptz)
      returns text language sql immutable parallel safe as $$
      select substr(row_to_json(o)::text, 2) from (select body as "body",
        to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "created_at",
        to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "updated_at") o
    $$`,
    `alter table snippets
      add column json_head text generated always as (snippet_json_head(id, org_id, type, name, slug, category, tags, visibility, version)) stored,
      add column json_tail text generated always as (snippet_json_tail(body, created_at, updated_at)) stored`,
  ],
};
