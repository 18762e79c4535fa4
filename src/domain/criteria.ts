import { z } from 'zod';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findCard } from './card-refs.js';
import type { Ctx } from './context.js';
import { notFound, validationFailed } from './errors.js';
import { id, label, pageQuery } from './fields.js';
import { newId } from './ids.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { toIso } from './time.js';

/** A criterion (subtask) of a card; `todo_id` is the todo that mirrors it, if any. */
export const criterionSchema = z.object({
  id: z.string(),
  card_id: z.string(),
  title: z.string(),
  done: z.boolean(),
  todo_id: z.string().nullable().describe('The todo that mirrors this criterion, if any'),
  created_at: z.string(),
});
export type Criterion = z.infer<typeof criterionSchema>;

export const criterionTitle = label(300);
const cardKey = z.string().trim().min(1).max(64).describe('Card id (crd_…) or ref (ENG-42)');

export const listCriteriaInput = z.object({ id: cardKey, ...pageQuery });
export const addCriterionInput = z.object({ id: cardKey, title: criterionTitle });
export const updateCriterionInput = z.object({
  id: cardKey,
  criterion_id: id('crit'),
  title: criterionTitle.optional(),
  done: z.boolean().optional().describe('Ticks or unticks it; a mirroring todo follows'),
});

interface CriterionRow {
  id: string;
  card_id: string;
  title: string;
  done: boolean;
  todo_id: string | null;
  created_at: string;
}

function presentCriterion(row: CriterionRow): Criterion {
  return { id: row.id, card_id: row.card_id, title: row.title, done: row.done, todo_id: row.todo_id, created_at: toIso(row.created_at) };
}

function criteriaOf(db: Kysely<Database>, orgId: string) {
  return db
    .selectFrom('criteria as k')
    .leftJoin('todos as t', 't.criterion_id', 'k.id')
    .where('k.org_id', '=', orgId)
    .select(['k.id', 'k.card_id', 'k.position', 'k.title', 'k.done', 't.id as todo_id', 'k.created_at']);
}

/**
 * Adds criteria to a card after its last one. The caller holds the card's row lock (or made
 * the card in this transaction), so positions cannot collide.
 */
export async function insertCriteria(db: Kysely<Database>, orgId: string, cardId: string, titles: string[]): Promise<string[]> {
  if (titles.length === 0) return [];
  const last = await db
    .selectFrom('criteria')
    .select((eb) => eb.fn.max('position').as('position'))
    .where('card_id', '=', cardId)
    .executeTakeFirst();
  const start = last?.position ?? 0;
  const ids = titles.map(() => newId('crit'));
  await db
    .insertInto('criteria')
    .values(titles.map((title, i) => ({ id: ids[i]!, org_id: orgId, card_id: cardId, position: start + i + 1, title })))
    .execute();
  return ids;
}

/** A card's criteria, newest first (by position). */
export async function listCriteria(ctx: Ctx, input: z.infer<typeof listCriteriaInput>): Promise<Page<Criterion>> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  const scope = ['criteria', ctx.principal.orgId, card.id];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = criteriaOf(ctx.db, ctx.principal.orgId).where('k.card_id', '=', card.id);
  if (at) q = q.where(before('k.position', 'k.id', at, 'integer'));
  const rows = await q.orderBy('k.position', 'desc').orderBy('k.id', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.position, id: r.id }), presentCriterion, scope);
}

export async function getCriterion(db: Kysely<Database>, orgId: string, criterionId: string): Promise<Criterion> {
  const row = await criteriaOf(db, orgId).where('k.id', '=', criterionId).executeTakeFirst();
  if (!row) throw notFound('criterion');
  return presentCriterion(row);
}

export async function addCriterion(ctx: Ctx, input: z.infer<typeof addCriterionInput>): Promise<Criterion> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id, true);
  const [criterionId] = await insertCriteria(ctx.db, ctx.principal.orgId, card.id, [input.title]);
  return getCriterion(ctx.db, ctx.principal.orgId, criterionId!);
}

/**
 * Renames, ticks or unticks a criterion. A mirroring todo follows a tick in the same
 * transaction. Locks go todo first, then criterion, the same order as completing a todo,
 * so the two never deadlock.
 */
export async function updateCriterion(ctx: Ctx, input: z.infer<typeof updateCriterionInput>): Promise<Criterion> {
  if (input.title === undefined && input.done === undefined) {
    throw validationFailed([{ field: 'body', code: 'empty', message: 'give title or done' }]);
  }
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  const own = await ctx.db
    .selectFrom('criteria')
    .select('id')
    .where('org_id', '=', ctx.principal.orgId)
    .where('card_id', '=', card.id)
    .where('id', '=', input.criterion_id)
    .executeTakeFirst();
  if (!own) throw notFound('criterion');
  const now = ctx.clock().toISOString();
  if (input.done !== undefined) {
    const todo = await ctx.db
      .selectFrom('todos')
      .select(['id', 'done'])
      .where('criterion_id', '=', input.criterion_id)
      .forUpdate()
      .executeTakeFirst();
    if (todo && todo.done !== input.done) {
      await ctx.db
        .updateTable('todos')
        .set({ done: input.done, done_at: input.done ? now : null, updated_at: now })
        .where('id', '=', todo.id)
        .execute();
    }
  }
  const patch: { title?: string; done?: boolean } = {};
  if (input.title !== undefined) patch.title = input.title;
  if (input.done !== undefined) patch.done = input.done;
  await ctx.db.updateTable('criteria').set({ ...patch, updated_at: now }).where('id', '=', own.id).execute();
  return getCriterion(ctx.db, ctx.principal.orgId, input.criterion_id);
}
