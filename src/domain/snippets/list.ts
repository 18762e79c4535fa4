import { sql } from 'kysely';
import type { z } from 'zod';
import type { Ctx } from '../context.js';
import { pageJson, type JsonText } from '../json-text.js';
import { before, fetchLimit, pageLimit, readCursor } from '../pagination.js';
import type { listSnippetsInput } from './fields.js';
import { snippetJson, visibleTo } from './rows.js';

/**
 * What a person typed as a search, made safe to hand to Postgres: control characters
 * (NUL cannot even be sent) become spaces. Blank means no search.
 */
export function searchText(q: string | undefined): string | undefined {
  if (q === undefined) return undefined;
  const text = q.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return text === '' ? undefined : text;
}

/**
 * The caller's snippets, newest `updated_at` first, filtered by type, tag and full-text
 * search (`snippet_search_query`, migration 0002: `websearch_to_tsquery`, which accepts
 * any text as a query, so no input can make it fail; text without any word matches nothing).
 *
 * Each snippet comes as its JSON, built by Postgres (`snippetJson`).
 *
 * `select updated_at, id, <json> from snippets left join snippet_links … where org_id = $org
 *  and (visibility …) and type = $type and tags @> array[$tag] and search @@ snippet_search_query($q)
 *  and (updated_at, id) < ($key, $id) order by updated_at desc, id desc limit <n + 1>`
 */
export async function listSnippets(ctx: Ctx, input: z.infer<typeof listSnippetsInput>): Promise<JsonText> {
  const q = searchText(input.q);
  const scope = ['snippets', ctx.principal.orgId, ctx.principal.memberId, input.type ?? null, input.tag ?? null, q ?? null];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let query = ctx.db
    .selectFrom('snippets')
    .leftJoin('snippet_links', (j) => j.onRef('snippet_links.snippet_id', '=', 'snippets.id').on('snippet_links.revoked_at', 'is', null))
    .select(['snippets.updated_at', 'snippets.id', snippetJson(ctx).as('json')])
    .where(visibleTo(ctx));
  if (input.type !== undefined) query = query.where('snippets.type', '=', input.type);
  if (input.tag !== undefined) query = query.where(sql<boolean>`snippets.tags @> array[${input.tag}]::text[]`);
  if (q !== undefined) query = query.where(sql<boolean>`snippets.search @@ snippet_search_query(${q})`);
  if (at) query = query.where(before('snippets.updated_at', 'snippets.id', at, 'timestamptz'));
  const rows = await query.orderBy('snippets.updated_at', 'desc').orderBy('snippets.id', 'desc').limit(fetchLimit(limit)).execute();
  return pageJson(rows, limit, (r) => ({ key: r.updated_at, id: r.id }), scope);
}
