import { z } from 'zod';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findCard } from './card-refs.js';
import type { Ctx } from './context.js';
import { notFound, validationFailed } from './errors.js';
import { id, key, label, pageQuery } from './fields.js';
import { newId } from './ids.js';
import { after, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { toIso } from './time.js';

/** A criterion (subtask) of a card; `todo_id` is the todo that mirrors it, if any. */
export const criterionSchema = z.object({
  id: z.string(),
  card_id: z.string(),
  title: z.string(),
  done: z.boolean(),
  todo_id: z.string().nullable().describe('The todo that mirrors this criterion, if any'),
  position: z.number().int().describe('Its place on the card, from 0; criteria are listed in this order'),
  created_at: z.string(),
});
export type Criterion = z.infer<typeof criterionSchema>;

export const criterionTitle = label(300);
const cardKey = key('card').describe('Card id (crd_…) or ref (ENG-42)');

export const listCriteriaInput = z.object({ id: cardKey, ...pageQuery });
export const addCriterionInput = z.object({ id: cardKey, title: criterionTitle });
export const criterionKeyInput = z.object({ id: cardKey, criterion_id: id('crit') });
export const updateCriterionInput = criterionKeyInput.extend({
  title: criterionTitle.optional().describe('Renames it; a mirroring todo is renamed with it'),
  done: z.boolean().optional().describe('Ticks or unticks it; a mirroring todo follows'),
  position: z
    .number()
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(10_000, 'must be at most 10000')
    .optional()
    .describe('Moves it to this place on the card, from 0 (the first)'),
});

interface CriterionRow {
  id: string;
  card_id: string;
  title: string;
  done: boolean;
  todo_id: string | null;
  rank: number;
  created_at: string;
}

function presentCriterion(row: CriterionRow): Criterion {
  return {
    id: row.id,
    card_id: row.card_id,
    title: row.title,
    done: row.done,
    todo_id: row.todo_id,
    position: row.rank,
    created_at: toIso(row.created_at),
  };
}

/**
 * Criteria with their mirroring todo and their place on the card. Stored positions keep
 * the gaps deletions leave (so a page already read never shifts); the place shown is the
 * rank among the card's criteria, which the `(card_id, position)` index counts.
 */
function criteriaOf(db: Kysely<Database>, orgId: string) {
  return db
    .selectFrom('criteria as k')
    .leftJoin('todos as t', 't.criterion_id', 'k.id')
    .where('k.org_id', '=', orgId)
    .select(['k.id', 'k.card_id', 'k.position', 'k.title', 'k.done', 't.id as todo_id', 'k.created_at'])
    .select(sql<number>`(select count(*)::int from criteria p where p.card_id = k.card_id and p.position < k.position)`.as('rank'));
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
    .where('org_id', '=', orgId)
    .where('card_id', '=', cardId)
    .executeTakeFirst();
  const start = last?.position == null ? 0 : last.position + 1;
  const ids = titles.map(() => newId('crit'));
  await db
    .insertInto('criteria')
    .values(titles.map((title, i) => ({ id: ids[i]!, org_id: orgId, card_id: cardId, position: start + i, title })))
    .execute();
  return ids;
}

/** A card's criteria in their order on the card (position), first to last. */
export async function listCriteria(ctx: Ctx, input: z.infer<typeof listCriteriaInput>): Promise<Page<Criterion>> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  const scope = ['criteria', ctx.principal.orgId, card.id];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = criteriaOf(ctx.db, ctx.principal.orgId).where('k.card_id', '=', card.id);
  if (at) q = q.where(after('k.position', 'k.id', at, 'integer'));
  const rows = await q.orderBy('k.position', 'asc').orderBy('k.id', 'asc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.position, id: r.id }), presentCriterion, scope);
}

export async function getCriterion(db: Kysely<Database>, orgId: string, criterionId: string): Promise<Criterion> {
  const row = await criteriaOf(db, orgId).where('k.id', '=', criterionId).executeTakeFirst();
  if (!row) throw notFound('criterion', criterionId);
  return presentCriterion(row);
}

export async function addCriterion(ctx: Ctx, input: z.infer<typeof addCriterionInput>): Promise<Criterion> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id, true);
  const [criterionId] = await insertCriteria(ctx.db, ctx.principal.orgId, card.id, [input.title]);
  return getCriterion(ctx.db, ctx.principal.orgId, criterionId!);
}

/**
 * The criterion of that card, with the todo mirroring it locked. Every write to a criterion
 * goes through here, and locks go card (when asked), then todo, then criterion: the order
 * of deleting a card, and, without the card, of completing a todo, so none of them deadlock.
 */
async function lockCriterion(ctx: Ctx, input: z.infer<typeof criterionKeyInput>, lockCard: boolean) {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id, lockCard);
  const todo = await ctx.db
    .selectFrom('todos')
    .select(['id', 'done', 'title'])
    .where('org_id', '=', ctx.principal.orgId)
    .where('criterion_id', '=', input.criterion_id)
    .forUpdate()
    .executeTakeFirst();
  const criterion = await ctx.db
    .selectFrom('criteria')
    .select(['id', 'position'])
    .where('org_id', '=', ctx.principal.orgId)
    .where('card_id', '=', card.id)
    .where('id', '=', input.criterion_id)
    .forUpdate()
    .executeTakeFirst();
  if (!criterion) throw notFound('criterion', input.criterion_id);
  return { card, todo, criterion };
}

/**
 * Renames, ticks, unticks or moves a criterion. A mirroring todo follows a tick and a new
 * title in the same transaction (a todo and its criterion always carry one title).
 */
export async function updateCriterion(ctx: Ctx, input: z.infer<typeof updateCriterionInput>): Promise<Criterion> {
  // Moving renumbers the card's criteria: the card's lock keeps a new criterion out meanwhile.
  const { card, todo, criterion } = await lockCriterion(ctx, input, input.position !== undefined);
  const now = ctx.clock().toISOString();
  if (todo) {
    const follow: { title?: string; done?: boolean; done_at?: string | null } = {};
    if (input.title !== undefined && input.title !== todo.title) follow.title = input.title;
    if (input.done !== undefined && input.done !== todo.done) Object.assign(follow, { done: input.done, done_at: input.done ? now : null });
    if (Object.keys(follow).length > 0) {
      await ctx.db.updateTable('todos').set({ ...follow, updated_at: now }).where('org_id', '=', ctx.principal.orgId).where('id', '=', todo.id).execute();
    }
  }
  const patch: { title?: string; done?: boolean } = {};
  if (input.title !== undefined) patch.title = input.title;
  if (input.done !== undefined) patch.done = input.done;
  if (Object.keys(patch).length > 0) {
    await ctx.db.updateTable('criteria').set({ ...patch, updated_at: now }).where('org_id', '=', ctx.principal.orgId).where('id', '=', criterion.id).execute();
  }
  if (input.position !== undefined) await moveCriterion(ctx, card.id, criterion.id, input.position);
  return getCriterion(ctx.db, ctx.principal.orgId, input.criterion_id);
}

/**
 * Puts a criterion at place `to` (from 0) among its card's criteria and numbers them all
 * 0, 1, 2… in their new order, in one statement (the unique position is checked at its end).
 *
 * ```sql
 * update criteria k set position = v.position from (values ($1, 0), ($2, 1), …) v(id, position)
 * where k.org_id = $n and k.card_id = $m and k.id = v.id and k.position <> v.position
 * ```
 */
async function moveCriterion(ctx: Ctx, cardId: string, criterionId: string, to: number): Promise<void> {
  const orgId = ctx.principal.orgId;
  const rows = await ctx.db.selectFrom('criteria').select('id').where('org_id', '=', orgId).where('card_id', '=', cardId).orderBy('position').execute();
  if (to >= rows.length) {
    const last = rows.length - 1;
    throw validationFailed([
      { field: 'position', code: 'too_big', message: `position must be between 0 and ${last}: the card has ${rows.length} criteria.` },
    ]);
  }
  const order = rows.map((r) => r.id).filter((id) => id !== criterionId);
  order.splice(to, 0, criterionId);
  const values = sql.join(order.map((id, i) => sql`(${id}, ${i}::int)`));
  await sql`update criteria k set position = v.position, updated_at = ${ctx.clock().toISOString()}
    from (values ${values}) as v(id, position)
    where k.org_id = ${orgId} and k.card_id = ${cardId} and k.id = v.id and k.position <> v.position`.execute(ctx.db);
}

/**
 * Deletes a criterion; a todo mirroring it stays, unlinked from the criterion and its card.
 * The others keep their stored positions (their places close up), so a page of criteria
 * already read never shifts.
 */
export async function deleteCriterion(ctx: Ctx, input: z.infer<typeof criterionKeyInput>): Promise<void> {
  const { todo, criterion } = await lockCriterion(ctx, input, false);
  if (todo) {
    await ctx.db
      .updateTable('todos')
      .set({ card_id: null, criterion_id: null, updated_at: ctx.clock().toISOString() })
      .where('org_id', '=', ctx.principal.orgId)
      .where('id', '=', todo.id)
      .execute();
  }
  await ctx.db.deleteFrom('criteria').where('org_id', '=', ctx.principal.orgId).where('id', '=', criterion.id).execute();
}
