import type { SqlMigration } from '../migration.js';

/**
 * Search as you type (contract §13): every word of a query must match and the last one
 * matches as a prefix, so `overd` finds "Overdue cards" while the word is still being typed.
 *
 * `search_query(q, last_word)` is `snippet_search_query(q)` (web search syntax: phrases, or,
 * -word) with the lexemes of its last word made prefixes: the query's text ends with the last
 * word's own query text (`'sign-u' <-> 'sign' <-> 'u'`), which gets `:*` after each lexeme.
 * The caller names the last word only when it is a plain word (not quoted, not excluded, not
 * `or`); an empty `last_word` leaves the query as it was.
 *
 * Titles of cards and todos, names of milestones and boards are matched through
 * `search_words_vector`, the same split as snippets' (`/` and `.` are spaces), each table
 * with a GIN index on it, so a search reads the rows that match, not the organization's.
 */
export const search: SqlMigration = {
  name: '0021-search',
  up: [
    `create function search_words_vector(words text) returns tsvector
      language sql immutable parallel safe
      as $$ select to_tsvector('pg_catalog.simple', translate(words, '/.', '  ')) $$`,
    `create function search_query(q text, last_word text) returns tsquery
      language sql immutable parallel safe as $$
      select case when t.tail <> '' and right(t.whole, length(t.tail)) = t.tail
        then (left(t.whole, length(t.whole) - length(t.tail)) || regexp_replace(t.tail, '''( <->|$)', ''':*\\1', 'g'))::tsquery
        else t.whole::tsquery end
      from (select snippet_search_query(q)::text as whole, snippet_search_query(last_word)::text as tail) t
    $$`,
    `create index cards_title_search on cards using gin (search_words_vector(title))`,
    `create index todos_title_search on todos using gin (search_words_vector(title))`,
    `create index milestones_name_search on milestones using gin (search_words_vector(ref || ' ' || name))`,
    `create index boards_name_search on boards using gin (search_words_vector(name || ' ' || slug || ' ' || ref_prefix))`,
  ],
};
