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
 * holds every word, then those that hold them elsewhere (a snippet's body or tags), each by
 * rank of the title and then the most recently changed. Every word must match, the last as a
 * prefix (`search_query`, migration 0021); each table is read through its search index.
 *
 * ```sql
 * with sq as (select search_query($q, $last) as q)
 * select … from (
 *   (select 'card', … from cards c join boards b … where c.org_id = $org and (search_words_vector(c.title) @@ (select q from sq) or <ref>) order by … limit n)
 *   union all (select 'todo', … where t.member_id = $me …) union all … ) r
 * left join snippets s on r.type = 'snippet' and s.id = r.id   -- the excerpt, for the page only
 * order by exact desc, in_title desc, rank desc, updated_at desc, id limit n
 * ```
 */
export async function search(ctx: Ctx, input: z.infer<typeof searchInput>): Promise<z.input<typeof searchResultsSchema>> {
  const text = searchText(input.q) ?? '';
  const types = new Set<SearchType>(input.types ? (input.types.split(',') as SearchType[]) : SEARCH_TYPES);
  const limit = input.limit ?? DEFAULT_LIMIT;
  const terms: Terms = { org: ctx.principal.orgId, me: ctx.principal.memberId, q: text, last: lastWord(text), key: /\s/.test(text) ? '' : text.toLowerCase() };
  const parts = SEARCH_TYPES.filter((t) => types.has(t)).map((t) => sql`(${PARTS[t](terms, limit)})`);
  const { rows } = await sql<Row>`
    with sq as (select search_query(${terms.q}, ${terms.last}) as q)
    select r.type, r.id, r.ref, r.title, r.updated_at::text as updated_at,
      coalesce(r.excerpt, regexp_replace(ts_headline('pg_catalog.simple', left(s.body, ${sql.lit(EXCERPT_SOURCE)}), (select q from sq),
        'StartSel="",StopSel="",MaxWords=24,MinWords=12,ShortWord=0'), '\\s+', ' ', 'g')) as excerpt
    from (${sql.join(parts, sql` union all `)}) r
    left join snippets s on r.type = 'snippet' and s.id = r.id
    order by r.exact desc, r.in_title desc, r.rank desc, r.updated_at desc, r.id
    limit ${sql.lit(limit)}`.execute(ctx.db);
  return { data: rows.map((r) => ({ type: r.type, id: r.id, ref: r.ref, title: r.title, excerpt: r.excerpt ?? '', updated_at: toIso(r.updated_at) })) };
}

/** The words matched in `vector`, and how well the title does. */
function matching(vector: RawBuilder<unknown>) {
  return {
    matches: sql`${vector} @@ (select q from sq)`,
    rank: sql`ts_rank(${vector}, (select q from sq))`,
  };
}

const ordered = (limit: number) => sql`order by exact desc, in_title desc, rank desc, updated_at desc, id limit ${sql.lit(limit)}`;

type Part = (t: Terms, limit: number) => RawBuilder<unknown>;

const PARTS: Record<SearchType, Part> = {
  card(t, limit) {
    const m = matching(sql`search_words_vector(c.title)`);
    const ref = parseCardRef(t.key);
    const exact = ref
      ? sql`(c.board_id = (select id from boards where org_id = ${t.org} and ref_prefix = ${ref.prefix}) and c.number = ${ref.number})`
      : sql`false`;
    return sql`select 'card' as type, c.id, b.ref_prefix || '-' || c.number as ref, c.title, b.name || ' · ' || replace(c.workflow_status, '_', ' ') as excerpt,
        c.updated_at, ${exact} as exact, ${m.matches} as in_title, ${m.rank} as rank
      from cards c join boards b on b.id = c.board_id
      where c.org_id = ${t.org} and (${m.matches} or ${exact}) ${ordered(limit)}`;
  },
  todo(t, limit) {
    const m = matching(sql`search_words_vector(t.title)`);
    return sql`select 'todo' as type, t.id, null::text as ref, t.title,
        concat_ws(' · ', t.priority, case when t.done then 'done' when t.due_on is not null then 'due ' || t.due_on::text end) as excerpt,
        t.updated_at, false as exact, true as in_title, ${m.rank} as rank
      from todos t
      where t.member_id = ${t.me} and (t.org_id is null or t.org_id = ${t.org}) and ${m.matches} ${ordered(limit)}`;
  },
  snippet(t, limit) {
    const m = matching(sql`search_words_vector(s.name)`);
    const exact = t.key === '' ? sql`false` : sql`(s.slug = ${t.key})`;
    return sql`select 'snippet' as type, s.id, s.slug as ref, s.name as title, null::text as excerpt,
        s.updated_at, ${exact} as exact, ${m.matches} as in_title, ${m.rank} as rank
      from snippets s
      where s.org_id = ${t.org} and (s.visibility = 'team' or s.created_by = ${t.me})
        and (s.search @@ (select q from sq) or ${exact}) ${ordered(limit)}`;
  },
  milestone(t, limit) {
    const m = matching(sql`search_words_vector(ms.ref || ' ' || ms.name)`);
    const exact = t.key === '' ? sql`false` : sql`(lower(ms.ref) = ${t.key})`;
    return sql`select 'milestone' as type, ms.id, ms.ref, ms.name as title,
        ms.kind || coalesce(' · ends ' || ms.ends_on::text, '') as excerpt,
        ms.updated_at, ${exact} as exact, ${m.matches} as in_title, ${m.rank} as rank
      from milestones ms
      where ms.org_id = ${t.org} and (${m.matches} or ${exact}) ${ordered(limit)}`;
  },
  board(t, limit) {
    const m = matching(sql`search_words_vector(b.name || ' ' || b.slug || ' ' || b.ref_prefix)`);
    const exact = t.key === '' ? sql`false` : sql`(b.slug = ${t.key} or b.ref_prefix = ${t.key.toUpperCase()})`;
    return sql`select 'board' as type, b.id, b.slug as ref, b.name as title,
        b.ref_prefix || case when b.gated then ' · gated' else '' end as excerpt,
        b.updated_at, ${exact} as exact, ${m.matches} as in_title, ${m.rank} as rank
      from boards b
      where b.org_id = ${t.org} and (${m.matches} or ${exact}) ${ordered(limit)}`;
  },
};
