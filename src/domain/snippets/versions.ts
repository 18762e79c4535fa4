import type { Selectable } from 'kysely';
import type { z } from 'zod';
import type { SnippetType, SnippetVersionsTable } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import { AppError } from '../errors.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from '../pagination.js';
import { toIso } from '../time.js';
import type { listSnippetVersionsInput, SnippetVersion, snippetVersionRefInput } from './fields.js';
import { byRef, snippetNotFound, visibleTo } from './rows.js';

const versionColumns = [
  'snippet_versions.snippet_id',
  'snippet_versions.version',
  'snippet_versions.name',
  'snippet_versions.category',
  'snippet_versions.tags',
  'snippet_versions.body',
  'snippet_versions.created_at',
] as const;

type VersionRow = Pick<Selectable<SnippetVersionsTable>, 'snippet_id' | 'version' | 'name' | 'category' | 'tags' | 'body' | 'created_at'>;

function presentVersion(type: SnippetType, row: VersionRow): SnippetVersion {
  return {
    snippet_id: row.snippet_id,
    version: row.version,
    type,
    name: row.name,
    category: row.category,
    tags: row.tags,
    body: row.body,
    created_at: toIso(row.created_at),
  };
}

/** The snippet the caller may see, by id or slug: its id and type, or 404 `snippet_not_found`. */
async function visibleSnippet(ctx: Ctx, ref: string): Promise<{ id: string; type: SnippetType }> {
  const row = await ctx.db.selectFrom('snippets').select(['snippets.id', 'snippets.type']).where(visibleTo(ctx)).where(byRef(ref)).executeTakeFirst();
  if (!row) throw snippetNotFound(ref);
  return row;
}

/**
 * Every version of a snippet, newest first; keyset on the version number (the primary key
 * `(snippet_id, version)` serves it).
 */
export async function listSnippetVersions(ctx: Ctx, input: z.infer<typeof listSnippetVersionsInput>): Promise<Page<SnippetVersion>> {
  const snippet = await visibleSnippet(ctx, input.id);
  const scope = ['snippet_versions', ctx.principal.orgId, snippet.id];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let query = ctx.db
    .selectFrom('snippet_versions')
    .select(versionColumns)
    .where('snippet_versions.org_id', '=', ctx.principal.orgId)
    .where('snippet_versions.snippet_id', '=', snippet.id);
  if (at) query = query.where(before('snippet_versions.version', 'snippet_versions.snippet_id', at, 'integer'));
  const rows = await query.orderBy('snippet_versions.version', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.version, id: r.snippet_id }), (r) => presentVersion(snippet.type, r), scope);
}

/** One version of a snippet; 404 `snippet_version_not_found` for a number it never had. */
export async function getSnippetVersion(ctx: Ctx, input: z.infer<typeof snippetVersionRefInput>): Promise<SnippetVersion> {
  const snippet = await visibleSnippet(ctx, input.id);
  const row = await ctx.db
    .selectFrom('snippet_versions')
    .select(versionColumns)
    .where('snippet_versions.org_id', '=', ctx.principal.orgId)
    .where('snippet_versions.snippet_id', '=', snippet.id)
    .where('snippet_versions.version', '=', input.n)
    .executeTakeFirst();
  if (!row) throw new AppError('snippet_version_not_found', 404, `Snippet ${JSON.stringify(input.id)} has no version ${input.n}.`);
  return presentVersion(snippet.type, row);
}
