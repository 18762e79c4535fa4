import { sql } from 'kysely';
import { QueryTemplate } from '../../db/query-template.js';
import type { z } from 'zod';
import type { Ctx } from '../context.js';
import type { RawJson } from '../../db/raw-json.js';
import { pageEntry, pageJson, pageRow } from '../json-text.js';
import { checkPosition, fetchLimit, keyset, pageLimit, readCursor, type Page } from '../pagination.js';
import type { SnippetType } from '../../db/schema.js';
import type { listSnippetsInput, Snippet } from './fields.js';
import { publicBaseUrl, snippetJsonAt, visibleWithLink } from './rows.js';
import { lastWord, searchText } from '../search-words.js';

/**
 * The caller's snippets, newest `updated_at` first, filtered by type, tag and full-text
 * search (`search_query`, migration 0021: `websearch_to_tsquery`, which accepts any text as a
 * query, so no input can make it fail, with the last word as a prefix; text without any word
 * matches nothing).
 *
 * Each snippet comes as its JSON, kept by Postgres beside the row (`snippetJsonAt`), and the
 * page as one row (`pageRow`).
 *
 * `select array[<json>, updated_at::text, id] from snippets left join snippet_links … where org_id = $org
 *  and (visibility …) and type = $type and tags @> array[$tag] and search @@ search_query($q, $last)
 *  and (updated_at, id) < ($key, $id) order by updated_at desc, id desc limit <n + 1>`
 */
export async function listSnippets(ctx: Ctx, input: z.infer<typeof listSnippetsInput>): Promise<RawJson<Page<Snippet>>> {
  const q = searchText(input.q);
  const scope = ['snippets', ctx.principal.orgId, ctx.principal.memberId, input.type ?? null, input.tag ?? null, q ?? null];
  const at = readCursor(input.cursor, scope);
  if (at) checkPosition(at, 'timestamptz');
  const limit = pageLimit(input);
  const shape: ListShape = { base: publicBaseUrl(ctx), type: input.type !== undefined, tag: input.tag !== undefined, q: q !== undefined, at: at !== undefined, limit };
  const values = { org: ctx.principal.orgId, me: ctx.principal.memberId, type: input.type ?? null, tag: input.tag ?? null, q: q ?? null, last: q === undefined ? null : lastWord(q), key: at?.key ?? null, id: at?.id ?? null };
  return pageJson(await snippetPage.executeTakeFirst(ctx.db, shape, values), scope);
}

/** What the list's SQL text depends on: which filters apply, the page size, the links' base. */
interface ListShape {
  base: string;
  type: boolean;
  tag: boolean;
  q: boolean;
  at: boolean;
  limit: number;
}

const snippetPage = new QueryTemplate(
  'listSnippets',
  (db, shape: ListShape, v: { org: string; me: string; type: SnippetType | null; tag: string | null; q: string | null; last: string | null; key: string | number | null; id: string | null }) => {
    let query = visibleWithLink(db, v.org, v.me).select(pageEntry(snippetJsonAt(shape.base), 'snippets.updated_at', 'snippets.id'));
    if (shape.type) query = query.where('snippets.type', '=', v.type as SnippetType);
    if (shape.tag) query = query.where(sql<boolean>`snippets.tags @> array[${v.tag}]::text[]`);
    if (shape.q) query = query.where(sql<boolean>`snippets.search @@ search_query(${v.q}, ${v.last})`);
    if (shape.at) query = query.where(keyset('snippets.updated_at', 'snippets.id', { key: v.key!, id: v.id! }, 'timestamptz', '<'));
    return pageRow(db, query.orderBy('snippets.updated_at', 'desc').orderBy('snippets.id', 'desc').limit(fetchLimit(shape.limit)), shape.limit);
  },
);
