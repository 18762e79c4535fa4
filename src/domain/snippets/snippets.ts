import { sql, type Kysely, type Updateable } from 'kysely';
import type { z } from 'zod';
import { ConcurrentCommit } from '../../db/errors.js';
import { QueryTemplate } from '../../db/query-template.js';
import type { Database, SnippetsTable } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import { forbidden } from '../errors.js';
import { newId } from '../ids.js';
import {
  requireBodySize,
  uniqueTags,
  type createSnippetInput,
  type Snippet,
  type snippetRefInput,
  type updateSnippetInput,
} from './fields.js';
import { newLink, publicUrl, replaceLink } from './links.js';
import { byRef, loadSnippet, loadSnippetJson, lockSnippet, presentSnippet, snippetColumns, snippetNotFound, visibleTo, type SnippetWithLink } from './rows.js';
import type { RawJson } from '../../db/raw-json.js';
import { allocateSlug, freeSlug, slugFits, slugLockName, slugLockOn, snippetSlug } from './slug.js';

/** What a version row copies of its snippet, beside the snippet's id (`snippet_id`). */
const VERSIONED = ['version', 'org_id', 'created_by', 'name', 'category', 'tags', 'body'] as const;

/** A snippet's columns as `loadSnippet` reads them (`snippetColumns`), unqualified: what a new snippet's insert returns. */
const RETURNED = sql.raw(snippetColumns.map((c) => c.slice('snippets.'.length)).join(', '));

/**
 * Makes the snippet's current state its version row: a new row when the body made a new
 * version, else the current version's row takes the new name, category and tags (a version
 * row shows the snippet as it last was at that version). Copies inside Postgres, so a
 * large body crosses the wire once.
 *
 * `insert into snippet_versions (…) select … from snippets where org_id = $1 and id = $2
 *  on conflict (snippet_id, version) do update set name = excluded.name, …`
 */
async function recordVersion(db: Kysely<Database>, orgId: string, snippetId: string): Promise<void> {
  await db
    .insertInto('snippet_versions')
    .columns(['snippet_id', ...VERSIONED])
    .expression(
      db
        .selectFrom('snippets')
        .select(['id', ...VERSIONED])
        .where('org_id', '=', orgId)
        .where('id', '=', snippetId),
    )
    .onConflict((oc) =>
      oc.columns(['snippet_id', 'version']).doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        category: eb.ref('excluded.category'),
        tags: eb.ref('excluded.tags'),
      })),
    )
    .execute();
}

/** Tries before a new snippet gives up on a slug others keep taking first (each try sees their commits). */
const SLUG_TRIES = 5;

/**
 * A new snippet at version 1, with its slug, its version row and its public link, in one
 * statement: the slugs' lock (`slugLock`, held to the commit, so creations and renames from
 * the same names take turns), the first free slug (`freeSlug`), the insert, its version and
 * its link, and the row as `loadSnippet` reads it. The statement's snapshot predates its wait
 * for the lock, so it can miss the slug the lock's last holder committed: the insert then
 * does nothing (`on conflict`), and the next try, a new statement with a new snapshot and the
 * lock already held, sees it and takes the next slug.
 *
 * ```sql
 * with lock as (select pg_advisory_xact_lock(…)),
 *   s as (insert into snippets (…) select …, <free slug>, … from lock on conflict (org_id, slug) do nothing returning …),
 *   v as (insert into snippet_versions (…) select … from s),
 *   l as (insert into snippet_links (link, snippet_id, org_id) select $link, id, org_id from s returning link)
 * select s.*, l.link from s, l
 * ```
 */
export async function createSnippet(ctx: Ctx, input: z.infer<typeof createSnippetInput>): Promise<Snippet> {
  requireBodySize(input.body);
  const { orgId, memberId } = ctx.principal;
  const base = snippetSlug(input.name);
  const values: NewSnippet = {
    lock: slugLockName(orgId, base),
    id: '',
    org: orgId,
    member: memberId,
    type: input.type,
    name: input.name,
    base,
    base_end: `${base}.`,
    category: input.category ?? null,
    tags: uniqueTags(input.tags),
    visibility: input.visibility,
    body: input.body,
    link: newLink(),
  };
  for (let attempt = 1; ; attempt++) {
    values.id = newId('snp');
    const row = await snippetCreated.executeTakeFirst(ctx.db, null, values);
    if (row) return presentSnippet(ctx, row);
    if (attempt === SLUG_TRIES) throw new ConcurrentCommit(`A snippet with the slug ${base} or each of its next free ones`);
  }
}

type NewSnippet = Record<'lock' | 'id' | 'org' | 'member' | 'type' | 'name' | 'base' | 'base_end' | 'visibility' | 'body' | 'link', string> & {
  category: string | null;
  tags: readonly string[];
};

/** `createSnippet`'s statement, built and compiled once (`QueryTemplate`). */
const snippetCreated = new QueryTemplate('createSnippet', (_db, _shape: null, v: NewSnippet) =>
  sql<SnippetWithLink>`
      with lock as (select ${slugLockOn(v.lock)}),
      s as (
        insert into snippets (id, org_id, created_by, type, name, slug, category, tags, visibility, version, body)
        select ${v.id}, ${v.org}, ${v.member}, ${v.type}, ${v.name}, ${freeSlug(v.org, v.base, v.base_end)}, ${v.category},
               ${v.tags}::text[], ${v.visibility}, 1, ${v.body}
        from lock
        on conflict (org_id, slug) do nothing
        returning ${RETURNED}
      ),
      v as (insert into snippet_versions (snippet_id, ${sql.raw(VERSIONED.join(', '))}) select id, ${sql.raw(VERSIONED.join(', '))} from s),
      l as (insert into snippet_links (link, snippet_id, org_id) select ${v.link}, id, org_id from s returning link)
      select s.*, l.link from s, l`,
);

/**
 * A snippet by id (`snp_…`) or slug (what a person typed: `/snippet <slug or id>`), at its
 * current version; 404 `snippet_not_found` when it does not exist, was deleted, is another
 * organization's or another member's private one. Its JSON is built by Postgres.
 */
export async function getSnippet(ctx: Ctx, input: z.infer<typeof snippetRefInput>): Promise<RawJson<Snippet>> {
  return loadSnippetJson(ctx, input.id);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Changes any of body, name, category, tags and visibility. Only a different body makes a
 * new version; a new name brings a new slug unless the current one already derives from it.
 * Only the creator may change visibility (a teammate making it private would hide it from
 * everyone but the creator).
 */
export async function updateSnippet(ctx: Ctx, input: z.infer<typeof updateSnippetInput>): Promise<Snippet> {
  if (input.body !== undefined) requireBodySize(input.body);
  const current = await lockSnippet(ctx, input.id);
  const patch: Updateable<SnippetsTable> = {};
  if (input.body !== undefined && input.body !== current.body) {
    patch.body = input.body;
    patch.version = current.version + 1;
  }
  if (input.name !== undefined && input.name !== current.name) {
    patch.name = input.name;
    const base = snippetSlug(input.name);
    if (!slugFits(current.slug, base)) patch.slug = await allocateSlug(ctx.db, current.org_id, base);
  }
  if (input.category !== undefined && input.category !== current.category) patch.category = input.category;
  if (input.tags !== undefined) {
    const tags = uniqueTags(input.tags);
    if (!sameList(tags, current.tags)) patch.tags = tags;
  }
  if (input.visibility !== undefined && input.visibility !== current.visibility) {
    if (current.created_by !== ctx.principal.memberId) {
      throw forbidden('not_snippet_creator', "Only the snippet's creator can change its visibility.");
    }
    patch.visibility = input.visibility;
  }
  if (Object.keys(patch).length > 0) {
    await ctx.db
      .updateTable('snippets')
      .set({ ...patch, updated_at: sql<string>`now()` })
      .where('org_id', '=', current.org_id)
      .where('id', '=', current.id)
      .execute();
    await recordVersion(ctx.db, current.org_id, current.id);
  }
  return presentSnippet(ctx, await loadSnippet(ctx, current.id));
}

/** Deletes the snippet with every version and link: all of them answer 404 from the commit on. */
export async function deleteSnippet(ctx: Ctx, input: z.infer<typeof snippetRefInput>): Promise<void> {
  const result = await ctx.db.deleteFrom('snippets').where(visibleTo(ctx)).where(byRef(input.id)).executeTakeFirst();
  if (result.numDeletedRows === 0n) throw snippetNotFound(input.id);
}

/** Revokes the public link (404 from the commit on) and returns the new one. */
export async function rotateSnippetLink(ctx: Ctx, input: z.infer<typeof snippetRefInput>): Promise<{ public_url: string }> {
  const row = await lockSnippet(ctx, input.id);
  const link = await replaceLink(ctx.db, row.org_id, row.id);
  return { public_url: publicUrl(ctx, link) };
}
