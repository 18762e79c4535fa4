import { sql, type ExpressionBuilder, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { QueryTemplate } from '../../db/query-template.js';
import type { Database, SnippetsTable } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import { notFound } from '../errors.js';
import { hasIdPrefix } from '../ids.js';
import { RawJson } from '../../db/raw-json.js';
import { col, textLiteral } from '../json-text.js';
import { toIso } from '../time.js';
import type { Snippet } from './fields.js';
import { publicUrl } from './links.js';

/** Reading snippets as a caller may see them, and presenting them. */

export const snippetColumns = [
  'snippets.id',
  'snippets.org_id',
  'snippets.created_by',
  'snippets.type',
  'snippets.name',
  'snippets.slug',
  'snippets.category',
  'snippets.tags',
  'snippets.visibility',
  'snippets.version',
  'snippets.body',
  'snippets.created_at',
  'snippets.updated_at',
] as const;

export type SnippetRow = Omit<Selectable<SnippetsTable>, 'search' | 'json_head' | 'json_tail'>;
export type SnippetWithLink = SnippetRow & { link: string | null };

export const snippetNotFound = (ref: string) => notFound('snippet', ref);

/**
 * The caller's organization, and of it what they may see: team snippets and their own
 * private ones. Everything else is indistinguishable from a missing snippet.
 *
 * `snippets.org_id = $org and (snippets.visibility = 'team' or snippets.created_by = $me)`
 */
export function visibleTo(ctx: Ctx) {
  return visibleToMember(ctx.principal.orgId, ctx.principal.memberId);
}

/** `visibleTo` for an organization and member given as values (a `QueryTemplate`'s). */
export function visibleToMember(orgId: string, memberId: string) {
  return (eb: ExpressionBuilder<Database, 'snippets'>) =>
    eb.and([
      eb('snippets.org_id', '=', orgId),
      eb.or([eb('snippets.visibility', '=', 'team'), eb('snippets.created_by', '=', memberId)]),
    ]);
}

/** Whether `ref` is an id (`snp_…`) or a slug; a slug never holds `_`, so the two cannot be confused. */
export function refKind(ref: string): 'id' | 'slug' {
  return hasIdPrefix(ref, 'snp') ? 'id' : 'slug';
}

export function byRef(ref: string) {
  return (eb: ExpressionBuilder<Database, 'snippets'>) => eb(refKind(ref) === 'id' ? 'snippets.id' : 'snippets.slug', '=', ref);
}

/**
 * The snippets a member may see (`visibleToMember`), each with its active public link if any:
 * what every read of snippets selects from.
 *
 * `from snippets left join snippet_links on snippet_id = snippets.id and revoked_at is null where <visible>`
 */
export function visibleWithLink(db: Kysely<Database>, orgId: string, memberId: string) {
  return db
    .selectFrom('snippets')
    .leftJoin('snippet_links', (j) => j.onRef('snippet_links.snippet_id', '=', 'snippets.id').on('snippet_links.revoked_at', 'is', null))
    .where(visibleToMember(orgId, memberId));
}

const refColumn = (by: 'id' | 'slug') => (by === 'id' ? 'snippets.id' : 'snippets.slug');

const snippetWithLink = new QueryTemplate('loadSnippet', (db, by: 'id' | 'slug', v: { org: string; me: string; ref: string }) =>
  visibleWithLink(db, v.org, v.me)
    .select([...snippetColumns, 'snippet_links.link'])
    .where(refColumn(by), '=', v.ref),
);

const snippetJsonRow = new QueryTemplate('getSnippet', (db, shape: { by: 'id' | 'slug'; base: string }, v: { org: string; me: string; ref: string }) =>
  visibleWithLink(db, v.org, v.me)
    .select(snippetJsonAt(shape.base).as('json'))
    .where(refColumn(shape.by), '=', v.ref),
);

/** `presentSnippet` of `loadSnippet`, as JSON built by Postgres (`snippetJsonAt`); or 404 `snippet_not_found`. */
export async function loadSnippetJson(ctx: Ctx, ref: string): Promise<RawJson<Snippet>> {
  const values = { org: ctx.principal.orgId, me: ctx.principal.memberId, ref };
  const row = await snippetJsonRow.executeTakeFirst(ctx.db, { by: refKind(ref), base: publicBaseUrl(ctx) }, values);
  if (!row) throw snippetNotFound(ref);
  return new RawJson<Snippet>(row.json);
}

/** One snippet with its active link, or 404 `snippet_not_found`. */
export async function loadSnippet(ctx: Ctx, ref: string): Promise<SnippetWithLink> {
  const values = { org: ctx.principal.orgId, me: ctx.principal.memberId, ref };
  const row = await snippetWithLink.executeTakeFirst(ctx.db, refKind(ref), values);
  if (!row) throw snippetNotFound(ref);
  return row;
}

/** Locks the snippet's row for the rest of the write's transaction, or 404. */
export async function lockSnippet(ctx: Ctx, ref: string): Promise<SnippetRow> {
  const row = await ctx.db
    .selectFrom('snippets')
    .select(snippetColumns)
    .where(visibleTo(ctx))
    .where(byRef(ref))
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw snippetNotFound(ref);
  return row;
}

export function presentSnippet(ctx: Ctx, row: SnippetWithLink): Snippet {
  return {
    id: row.id,
    org_id: row.org_id,
    type: row.type,
    name: row.name,
    slug: row.slug,
    category: row.category,
    tags: row.tags,
    visibility: row.visibility,
    version: row.version,
    public_url: row.link === null ? null : publicUrl(ctx, row.link),
    body: row.body,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** The base of public links, which `snippetJsonAt` writes into its SQL. */
export function publicBaseUrl(ctx: Ctx): string {
  if (ctx.publicBaseUrl === undefined) throw new Error('Ctx.publicBaseUrl is not set');
  return ctx.publicBaseUrl;
}

/**
 * `presentSnippet` of a `snippets` row left-joined to its active `snippet_links` row, as JSON
 * text (the same keys in the same order, the same bytes), for links at `base`: the row's stored
 * JSON (migration 0012) around the link, `json_head || ',"public_url":' ||
 * coalesce(to_json('<base>/' || link)::text, 'null') || ',' || json_tail`. Built when a
 * `QueryTemplate` compiles a shape (the base is part of it), not per request.
 */
export function snippetJsonAt(base: string): RawBuilder<string> {
  const url = `coalesce(to_json(${textLiteral(`${base}/`)} || ${col('snippet_links.link')})::text, 'null')`;
  return sql.raw<string>(`(${col('snippets.json_head')} || ',"public_url":' || ${url} || ',' || ${col('snippets.json_tail')})`);
}
