import type { SqlMigration } from '../migration.js';

/**
 * Snippets, their versions and their public links.
 *
 * `search` is a stored tsvector kept by Postgres itself (a generated column), so no write
 * path can forget it. Text is split at `/` and `.` before parsing, on both sides (index and
 * query), because the parser keeps `u.email` or `ops/deploy.sh` as one token and `email`
 * would not find it. A tsvector holds at most 1 MB; a body whose words would not fit is
 * indexed by its first 100,000 characters (at most ~600 KB of lexemes, whatever the text).
 * The function is declared immutable although `array_to_string` is marked stable: it is
 * stable for arrays of any type (some types' text depends on settings), but over text[]
 * its result depends on its input alone.
 */
export const snippets: SqlMigration = {
  name: '0002-snippets',
  up: [
    `create function snippet_search_vector(name text, category text, tags text[], body text) returns tsvector
      language plpgsql immutable parallel safe as $$
      declare
        meta tsvector :=
          setweight(to_tsvector('pg_catalog.simple', translate(name, '/.', '  ')), 'A') ||
          setweight(to_tsvector('pg_catalog.simple', translate(coalesce(category, ''), '/.', '  ')), 'B') ||
          setweight(to_tsvector('pg_catalog.simple', translate(array_to_string(tags, ' '), '/.', '  ')), 'B');
      begin
        return meta || to_tsvector('pg_catalog.simple', translate(body, '/.', '  '));
      exception when program_limit_exceeded then
        return meta || to_tsvector('pg_catalog.simple', translate(left(body, 100000), '/.', '  '));
      end
    $$`,
    // Any text is a valid web search (quotes, or, -, stray operators); text without a word is an empty query.
    `create function snippet_search_query(q text) returns tsquery
      language sql immutable parallel safe
      as $$ select websearch_to_tsquery('pg_catalog.simple', translate(q, '/.', '  ')) $$`,
    `create table snippets (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      created_by text not null,
      type text not null check (type in ('html','sql','json','txt')),
      name text not null,
      slug text not null,
      category text,
      tags text[] not null default '{}',
      visibility text not null default 'team' check (visibility in ('private','team')),
      version integer not null default 1 check (version >= 1),
      body text not null,
      search tsvector generated always as (snippet_search_vector(name, category, tags, body)) stored,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint snippets_org_slug unique (org_id, slug)
    )`,
    `create index snippets_org_updated on snippets (org_id, updated_at desc, id desc)`,
    `create index snippets_search on snippets using gin (search)`,
    `create index snippets_tags on snippets using gin (tags)`,
    `create table snippet_versions (
      snippet_id text not null references snippets(id) on delete cascade,
      version integer not null check (version >= 1),
      org_id text not null,
      created_by text not null,
      name text not null,
      category text,
      tags text[] not null default '{}',
      body text not null,
      created_at timestamptz not null default now(),
      primary key (snippet_id, version)
    )`,
    // Revoked links stay as rows (revoked_at set) so a link value is never handed out twice.
    `create table snippet_links (
      link text primary key,
      snippet_id text not null references snippets(id) on delete cascade,
      org_id text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`,
    `create unique index snippet_links_active on snippet_links (snippet_id) where revoked_at is null`,
  ],
};
