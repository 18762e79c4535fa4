import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import { parseCardRef } from './card-refs.js';
import type { Ctx } from './context.js';
import { anyText } from './fields.js';
import { lastWord, searchText } from './search-words.js';
import { SEARCH_MAX_LENGTH } from './snippets/fields.js';
import { toIso } from './time.js';

export const SEARCH_TYPES = ['card', 'todo', 'snippet', 'milestone', 'board'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

const TYPE_LIST = new RegExp(`^(${SEARCH_TYPES.join('|')})(,(${SEARCH_TYPES.join('|')}))*$`);

export const searchInput = z.object({
  q: z
    .string()
    .max(SEARCH_MAX_LENGTH, `must be at most ${SEARCH_MAX_LENGTH} characters long`)
    .register(anyText, {})
    .refine((q) => searchText(q) !== undefined, 'must not be empty')
    .describe('What to find: every word must match, the last one as a prefix (web search syntax: "phrase", or, -word); a ref (ENG-42, M3, a slug) comes first'),
  types: z
    .string()
    .regex(TYPE_LIST, `must be a comma-separated list of ${SEARCH_TYPES.join(', ')}`)
    .optional()
    .describe(`What to look in, comma-separated (${SEARCH_TYPES.join(',')}); all of them when absent`),
  limit: z.number().int().min(1).max(50).optional().describe('How many results, default 20, at most 50'),
});

export const searchResultSchema = z.object({
  type: z.enum(SEARCH_TYPES),
  id: z.string(),
  ref: z.string().nullable().describe("The key of its page: a card's ref (ENG-42), a milestone's ref, a board's or snippet's slug; null for a todo"),
  title: z.string(),
  excerpt: z.string().describe("A line of context: the card's board and status, a snippet's body around the match, a todo's priority and due date"),
  updated_at: z.string(),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

export const searchResultsSchema = z.object({ data: z.array(searchResultSchema) });

const DEFAULT_LIMIT = 20;
/** How much of a snippet's body its excerpt is cut from (`ts_headline` reads all it is given). */
const EXCERPT_SOURCE = 5_000;

interface Terms {
  org: string;
  me: string;
  q: string;
  last: string;
  /** The text as one key (`eng-42`, `m3`, a slug), matched exactly against refs. */
  key: string;
}

interface Row {
  type: SearchType;
  id: string;
  ref: string | null;
  title: string;
  excerpt: string | null;
  updated_at: string;
}

/**
 * What the caller may see that matches `q`, best first: an exact ref, then things whose title
 * holds every word, then those that hold them elsewhere (a snippet's body or tags), each the
 * most recently changed first. Every word must match, the last as a
 * prefix (`search_query`, migration 0021); each table is read through its search index.
 *
 * ```sql
 * with sq as (select search_query($q, $last) as q)
 * select … from (select distinct on (type, id) … from (
 *   (select 'card', … from cards c join boards b … where c.org_id = $org and search_words_vector(c.title) @@ search_query($q, $last)
 *    order by updated_at desc, id desc limit n)
 *   union all (select 'card', …, true as exact … where c.board_id = (select id from boards … ref_prefix = $p) and c.number = $n)
 *   union all (select 'todo', … where t.member_id = $me …) union all …) u) r
 * left join snippets s on r.type = 'snippet' and s.id = r.id   -- the excerpt, for the page only
 * order by exact desc, in_title desc, updated_at desc, id desc limit n
 * ```
 */
export async function search(ctx: Ctx, input: z.infer<typeof searchInput>): Promise<z.input<typeof searchResultsSchema>> {
  const text = searchText(input.q) ?? '';
  const types = new Set<SearchType>(input.types ? (input.types.split(',') as SearchType[]) : SEARCH_TYPES);
  const limit = input.limit ?? DEFAULT_LIMIT;
  const terms: Terms = { org: ctx.principal.orgId, me: ctx.principal.memberId, q: text, last: lastWord(text), key: /\s/.test(text) ? '' : text.toLowerCase() };
  const parts = SEARCH_TYPES.filter((t) => types.has(t)).map((t) => PARTS[t](terms, limit));
  // A thing found both by its ref and by its words is listed once, as the exact match.
  const { rows } = await sql<Row>`
    with sq as (select search_query(${terms.q}, ${terms.last}) as q)
    select r.type, r.id, r.ref, r.title, r.updated_at::text as updated_at,
      coalesce(r.excerpt, regexp_replace(ts_headline('pg_catalog.simple', left(s.body, ${sql.lit(EXCERPT_SOURCE)}), (select q from sq),
        'StartSel="",StopSel="",MaxWords=24,MinWords=12,ShortWord=0'), '\\s+', ' ', 'g')) as excerpt
    from (
      select distinct on (u.type, u.id) u.* from (${sql.join(parts, sql` union all `)}) u
      order by u.type, u.id, u.exact desc, u.in_title desc
    ) r
    left join snippets s on r.type = 'snippet' and s.id = r.id
    order by r.exact desc, r.in_title desc, r.updated_at desc, r.id desc
    limit ${sql.lit(limit)}`.execute(ctx.db);
  return { data: rows.map((r) => ({ type: r.type, id: r.id, ref: r.ref, title: r.title, excerpt: r.excerpt ?? '', updated_at: toIso(r.updated_at) })) };
}

/**
 * The words as a condition a search index answers: the query as a call on the parameters,
 * which Postgres evaluates once per index scan (with `(select q from sq)` instead, a generic
 * plan scanned all the organization's snippets).
 */
const holds = (vector: RawBuilder<unknown>, t: Terms) => sql`${vector} @@ search_query(${t.q}, ${t.last})`;

/**
 * Newest first, as the indexes on `(…, updated_at desc, id desc)` read them, so a word found in
 * most rows stops at the page instead of sorting every match (no per-row rank for that reason:
 * ranking 100,000 matching snippets took seconds).
 */
const newest = (limit: number) => sql`order by updated_at desc, id desc limit ${sql.lit(limit)}`;

type Part = (t: Terms, limit: number) => RawBuilder<unknown>;

/** Each type's matches, and apart from them its exact ref (read by its unique index). */
const PARTS: Record<SearchType, Part> = {
  card(t, limit) {
    const select = sql`select 'card' as type, c.id, b.ref_prefix || '-' || c.number as ref, c.title,
        b.name || ' · ' || replace(c.workflow_status, '_', ' ') as excerpt, c.updated_at`;
    const from = sql`from cards c join boards b on b.id = c.board_id where c.org_id = ${t.org}`;
    const matches = sql`(${select}, false as exact, true as in_title ${from} and ${holds(sql`search_words_vector(c.title)`, t)} ${newest(limit)})`;
    const ref = parseCardRef(t.key);
    if (!ref) return matches;
    return sql`${matches} union all (${select}, true, true ${from}
      and c.board_id = (select id from boards where org_id = ${t.org} and ref_prefix = ${ref.prefix}) and c.number = ${ref.number})`;
  },
  todo(t, limit) {
    return sql`(select 'todo' as type, t.id, null::text as ref, t.title,
        concat_ws(' · ', t.priority, case when t.done then 'done' when t.due_on is not null then 'due ' || t.due_on::text end) as excerpt,
        t.updated_at, false as exact, true as in_title
      from todos t
      where t.member_id = ${t.me} and (t.org_id is null or t.org_id = ${t.org}) and ${holds(sql`search_words_vector(t.title)`, t)} ${newest(limit)})`;
  },
  snippet(t, limit) {
    const select = sql`select 'snippet' as type, s.id, s.slug as ref, s.name as title, null::text as excerpt, s.updated_at`;
    const from = sql`from snippets s where s.org_id = ${t.org} and (s.visibility = 'team' or s.created_by = ${t.me})`;
    // Named with the words or holding them elsewhere (body, category, tags): one scan, newest
    // first; the named ones of the page come first. Apart, two scans read 100,000 snippets twice.
    const named = sql`search_words_vector(s.name) @@ (select q from sq)`;
    const parts = sql`(${select}, false as exact, ${named} as in_title ${from} and s.search @@ search_query(${t.q}, ${t.last}) ${newest(limit)})`;
    return t.key === '' ? parts : sql`${parts} union all (${select}, true, true ${from} and s.slug = ${t.key})`;
  },
  milestone(t, limit) {
    const select = sql`select 'milestone' as type, ms.id, ms.ref, ms.name as title,
        ms.kind || coalesce(' · ends ' || ms.ends_on::text, '') as excerpt, ms.updated_at`;
    const from = sql`from milestones ms where ms.org_id = ${t.org}`;
    const matches = sql`(${select}, false as exact, true as in_title ${from} and ${holds(sql`search_words_vector(ms.ref || ' ' || ms.name)`, t)} ${newest(limit)})`;
    return t.key === '' ? matches : sql`${matches} union all (${select}, true, true ${from} and lower(ms.ref) = ${t.key})`;
  },
  board(t, limit) {
    const select = sql`select 'board' as type, b.id, b.slug as ref, b.name as title,
        b.ref_prefix || case when b.gated then ' · gated' else '' end as excerpt, b.updated_at`;
    const from = sql`from boards b where b.org_id = ${t.org}`;
    const matches = sql`(${select}, false as exact, true as in_title ${from} and ${holds(sql`search_words_vector(b.name || ' ' || b.slug || ' ' || b.ref_prefix)`, t)} ${newest(limit)})`;
    if (t.key === '') return matches;
    return sql`${matches} union all (${select}, true, true ${from} and b.slug = ${t.key})
      union all (${select}, true, true ${from} and b.ref_prefix = ${t.key.toUpperCase()})`;
  },
};
