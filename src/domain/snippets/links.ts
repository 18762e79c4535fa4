import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database, SnippetType } from '../../db/schema.js';
import type { Ctx } from '../context.js';
import { notFound } from '../errors.js';

/** 32 random bytes as base64url: 43 characters, 256 bits; nothing else in it to guess from. */
export function newLink(): string {
  return randomBytes(32).toString('base64url');
}

const LINK_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function publicUrl(ctx: Ctx, link: string): string {
  // Every face builds its Ctx through `execute`, which sets this; a missing base is a wiring bug.
  if (ctx.publicBaseUrl === undefined) throw new Error('Ctx.publicBaseUrl is not set');
  return `${ctx.publicBaseUrl}/${link}`;
}

/** Gives the snippet a new active link. Call with the snippet's row locked. */
export async function issueLink(db: Kysely<Database>, orgId: string, snippetId: string): Promise<string> {
  const link = newLink();
  await db.insertInto('snippet_links').values({ link, snippet_id: snippetId, org_id: orgId }).execute();
  return link;
}

/** Revokes the active link (dead at once for every reader: the page reads this table) and issues another. */
export async function replaceLink(db: Kysely<Database>, orgId: string, snippetId: string): Promise<string> {
  await db
    .updateTable('snippet_links')
    .set({ revoked_at: sql<string>`now()` })
    .where('snippet_id', '=', snippetId)
    .where('org_id', '=', orgId)
    .where('revoked_at', 'is', null)
    .execute();
  return issueLink(db, orgId, snippetId);
}

export interface PublicSnippet {
  type: SnippetType;
  body: string;
}

/**
 * What a public link shows: the current body of its snippet, or 404 `snippet_not_found`
 * once the link is rotated or the snippet deleted. No caller, so no organization: the
 * link itself is the capability.
 */
export async function readPublicSnippet(db: Kysely<Database>, link: string): Promise<PublicSnippet> {
  if (!LINK_PATTERN.test(link)) throw notFound('snippet');
  const row = await db
    .selectFrom('snippet_links')
    .innerJoin('snippets', (j) => j.onRef('snippets.id', '=', 'snippet_links.snippet_id').onRef('snippets.org_id', '=', 'snippet_links.org_id'))
    .select(['snippets.type', 'snippets.body'])
    .where('snippet_links.link', '=', link)
    .where('snippet_links.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw notFound('snippet');
  return row;
}
