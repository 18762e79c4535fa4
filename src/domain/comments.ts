import { z } from 'zod';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findCard } from './card-refs.js';
import type { Ctx } from './context.js';
import { forbidden, notFound } from './errors.js';
import { id, key, markdownText, pageQuery } from './fields.js';
import { newId } from './ids.js';
import { storeMentions } from './mentions.js';
import { checkPosition, fetchLimit, invalidCursor, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { isAdmin } from './permissions.js';
import { toIso } from './time.js';

/** A comment on a card (contract §11); mentions in its body are stored as `@mem_…`. */
export const commentSchema = z.object({
  id: z.string().describe('cmt_…'),
  card_id: z.string(),
  author: z.object({
    member_id: z.string().nullable().describe('Null once the member is removed'),
    name: z.string(),
    agent: z.boolean().describe('Written with an agent token'),
  }),
  body: z.string().describe('Markdown; a mention is `@mem_…` (show the member’s name); render it without raw HTML, links only http, https and mailto'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Comment = z.infer<typeof commentSchema>;

const cardKey = key('card').describe('Card id (crd_…) or ref (ENG-42)');
export const commentBody = markdownText(10_000).describe(
  'Markdown, 1 to 10000 characters (Unicode code points); `@name` or `@mem_…` mentions a member and is stored as `@mem_…`',
);

export const listCommentsInput = z.object({ id: cardKey, ...pageQuery });
export const addCommentInput = z.object({ id: cardKey, body: commentBody });
export const commentKeyInput = z.object({ id: cardKey, comment_id: id('cmt') });
// `body` is the one field a PATCH changes: optional in the shape, so an empty PATCH gets the
// same 422 `empty` as every resource's (contract §7), which is checked before `run`.
export const updateCommentInput = commentKeyInput.extend({ body: commentBody.optional() });

interface CommentRow {
  id: string;
  card_id: string;
  author_member_id: string | null;
  author_name: string;
  author_agent: boolean;
  body: string;
  created_at: string;
  updated_at: string;
}

function presentComment(row: CommentRow): Comment {
  return {
    id: row.id,
    card_id: row.card_id,
    author: { member_id: row.author_member_id, name: row.author_name, agent: row.author_agent },
    body: row.body,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** Comments with their author's current name (the name written with, once the member is removed). */
function commentsOf(db: Kysely<Database>, orgId: string) {
  return db
    .selectFrom('comments as t')
    .leftJoin('members as m', 'm.id', 't.author_member_id')
    .where('t.org_id', '=', orgId)
    .select(['t.id', 't.card_id', 't.author_member_id', 't.author_agent', 't.body', 't.created_at', 't.updated_at'])
    .select((eb) => eb.fn.coalesce('m.name', 't.author_name').as('author_name'));
}

/** A comment by id, in any card of the organization: what its events record. */
export async function getComment(db: Kysely<Database>, orgId: string, commentId: string): Promise<Comment> {
  const row = await commentsOf(db, orgId).where('t.id', '=', commentId).executeTakeFirst();
  if (!row) throw notFound('comment', commentId);
  return presentComment(row);
}

/** A card's comments, oldest first (a discussion reads down), keyset on `(created_at, seq)`. */
export async function listComments(ctx: Ctx, input: z.infer<typeof listCommentsInput>): Promise<Page<Comment>> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  const scope = ['comments', ctx.principal.orgId, card.id];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = commentsOf(ctx.db, ctx.principal.orgId).where('t.card_id', '=', card.id);
  if (at) {
    // The position's id is the comment's `seq` (digits): checked here, so Postgres never fails a cast.
    checkPosition(at, 'timestamptz');
    if (!/^[1-9][0-9]{0,17}$/.test(at.id)) throw invalidCursor();
    q = q.where(sql<boolean>`(t.created_at, t.seq) > ((select cast(${at.key} as timestamptz)), (select cast(${at.id} as bigint)))`);
  }
  const rows = await q.select('t.seq').orderBy('t.created_at', 'asc').orderBy('t.seq', 'asc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.created_at, id: String(r.seq) }), presentComment, scope);
}

/** How many comments a card has (Slack's `/card` shows it). */
export async function countComments(ctx: Ctx, input: { id: string }): Promise<{ count: number }> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  const row = await ctx.db
    .selectFrom('comments')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('org_id', '=', ctx.principal.orgId)
    .where('card_id', '=', card.id)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n) };
}

/** Writes a comment as the caller, with `@name` mentions of the organization's members stored as `@mem_…`. */
export async function addComment(ctx: Ctx, input: z.infer<typeof addCommentInput>): Promise<Comment> {
  const { orgId, memberId, agent } = ctx.principal;
  const card = await findCard(ctx.db, orgId, input.id);
  const author = await ctx.db.selectFrom('members').select('name').where('org_id', '=', orgId).where('id', '=', memberId).executeTakeFirstOrThrow();
  const commentId = newId('cmt');
  const now = ctx.clock().toISOString();
  await ctx.db
    .insertInto('comments')
    .values({
      id: commentId,
      org_id: orgId,
      card_id: card.id,
      author_member_id: memberId,
      author_name: author.name,
      author_agent: agent,
      body: await storeMentions(ctx.db, orgId, input.body),
      created_at: now,
      updated_at: now,
    })
    .execute();
  return getComment(ctx.db, orgId, commentId);
}

export const notCommentAuthor = (what: string) =>
  forbidden('not_comment_author', `Only the comment's author can ${what} it${what === 'delete' ? ', or an owner or admin' : ''}.`);

/**
 * The comment of that card, locked for the write. Its author is its member: any credential
 * of that member (a human's own token, or their agent token) acts as the author.
 */
async function lockComment(ctx: Ctx, input: z.infer<typeof commentKeyInput>) {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  const row = await ctx.db
    .selectFrom('comments')
    .select(['id', 'author_member_id'])
    .where('org_id', '=', ctx.principal.orgId)
    .where('card_id', '=', card.id)
    .where('id', '=', input.comment_id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound('comment', input.comment_id);
  return { mine: row.author_member_id === ctx.principal.memberId };
}

/** Rewrites a comment's body: its author only (403 `not_comment_author`). */
export async function updateComment(ctx: Ctx, input: z.infer<typeof updateCommentInput>): Promise<Comment> {
  const { mine } = await lockComment(ctx, input);
  if (!mine) throw notCommentAuthor('edit');
  const orgId = ctx.principal.orgId;
  if (input.body === undefined) return getComment(ctx.db, orgId, input.comment_id);
  const body = await storeMentions(ctx.db, orgId, input.body);
  await ctx.db
    .updateTable('comments')
    .set({ body, updated_at: ctx.clock().toISOString() })
    .where('org_id', '=', orgId)
    .where('id', '=', input.comment_id)
    .execute();
  return getComment(ctx.db, orgId, input.comment_id);
}

/** Deletes a comment: its author, or an owner or admin (403 `not_comment_author` for anyone else). */
export async function deleteComment(ctx: Ctx, input: z.infer<typeof commentKeyInput>): Promise<void> {
  const { mine } = await lockComment(ctx, input);
  if (!mine && !isAdmin(ctx.principal)) throw notCommentAuthor('delete');
  await ctx.db.deleteFrom('comments').where('org_id', '=', ctx.principal.orgId).where('id', '=', input.comment_id).execute();
}

/** The comments of a card (id or ref), which deleting it deletes: each records its own event. */
export async function commentIdsOfCard(db: Kysely<Database>, orgId: string, cardId: string): Promise<string[]> {
  const rows = await db.selectFrom('comments').select('id').where('org_id', '=', orgId).where('card_id', '=', cardId).orderBy('created_at').orderBy('seq').execute();
  return rows.map((r) => r.id);
}
