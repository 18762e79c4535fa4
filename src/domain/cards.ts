import { z } from 'zod';
import { sql } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import { WORKFLOW_STATUSES, type WorkflowStatus } from './vocabulary.js';
import { boardKey, findBoard } from './boards.js';
import { assigneeIds, requireMembers, setAssignees } from './card-assignees.js';
import { cardJson, cardsJoined, cardsWithDetails } from './card-query.js';
import { findCard, formatCardRef } from './card-refs.js';
import type { Ctx } from './context.js';
import { criterionTitle, insertCriteria } from './criteria.js';
import { notFound } from './errors.js';
import { id, key, label, pageQuery } from './fields.js';
import { dueDate } from './todo-due.js';
import { hasIdPrefix, newId } from './ids.js';
import { findMilestoneId, milestoneKey } from './milestones.js';
import { pageJson, pageNumber, pageRow, type JsonText } from './json-text.js';
import { checkPosition, fetchLimit, keyset, pageLimit, readCursor } from './pagination.js';
import { toIso } from './time.js';

export const cardSchema = z.object({
  id: z.string(),
  ref: z.string().describe('Human reference <PREFIX>-<n>, also used in branch names'),
  board_id: z.string(),
  title: z.string(),
  workflow_status: z.enum(WORKFLOW_STATUSES),
  gated: z.boolean().describe("The board's gate: a move to done needs a human caller"),
  criteria_done: z.number().int(),
  criteria_total: z.number().int(),
  due_on: z.string().nullable(),
  assignee_ids: z.array(z.string()),
  milestone: z.string().nullable().describe('The milestone ref, or null'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Card = z.infer<typeof cardSchema>;

export const cardKey = key('card').describe('Card id (crd_…) or ref (ENG-42)');
export const cardTitle = label(300);

export const createCardInput = z.object({
  board: boardKey,
  title: cardTitle,
  due_on: dueDate.optional(),
  assignee_ids: assigneeIds.optional(),
  milestone: key('milestone').optional().describe('Milestone ref'),
  criteria: z.array(criterionTitle).max(100, 'must have at most 100 criteria').optional().describe('Criterion titles, in order'),
});

export const listCardsInput = z.object({
  ...pageQuery,
  board: boardKey.optional(),
  status: z.enum(WORKFLOW_STATUSES).optional(),
  assignee: z
    .union([z.literal('me'), id('mem')])
    .optional()
    .describe('`me` or a member id'),
  milestone: milestoneKey.optional(),
});

export const cardKeyInput = z.object({ id: cardKey });

interface CardRow {
  id: string;
  board_id: string;
  number: number;
  title: string;
  workflow_status: WorkflowStatus;
  due_on: string | null;
  created_at: string;
  updated_at: string;
  ref_prefix: string;
  gated: boolean;
  milestone_ref: string | null;
  criteria_total: number;
  criteria_done: number;
  assignee_ids: string[];
}

export function presentCard(row: CardRow): Card {
  return {
    id: row.id,
    ref: formatCardRef(row.ref_prefix, row.number),
    board_id: row.board_id,
    title: row.title,
    workflow_status: row.workflow_status,
    gated: row.gated,
    criteria_done: row.criteria_done,
    criteria_total: row.criteria_total,
    due_on: row.due_on,
    assignee_ids: row.assignee_ids,
    milestone: row.milestone_ref,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** A card as every face shows it, by id; the caller already knows it exists. */
export async function loadCard(ctx: Ctx, cardId: string): Promise<Card> {
  const row = await cardsWithDetails(ctx.db, ctx.principal.orgId).where('c.id', '=', cardId).executeTakeFirst();
  if (!row) throw notFound('card', cardId);
  return presentCard(row);
}

/** A card by id or ref (`ENG-42`): what `GET /cards/{id}` and `/card ENG-42` show. */
export async function getCard(ctx: Ctx, input: z.infer<typeof cardKeyInput>): Promise<Card> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  return loadCard(ctx, card.id);
}

/**
 * Cards newest first, filtered by board (id or slug), status, assignee (`me` or a member id)
 * and milestone (ref); each card comes as its JSON, built by Postgres (`cardJson`), and the
 * page as one row (`pageRow`).
 */
export async function listCards(ctx: Ctx, input: z.infer<typeof listCardsInput>): Promise<JsonText> {
  const boardId = input.board === undefined ? null : (await findBoard(ctx.db, ctx.principal.orgId, input.board)).id;
  const milestoneId = input.milestone === undefined ? null : await findMilestoneId(ctx.db, ctx.principal.orgId, input.milestone);
  const assignee = input.assignee === 'me' ? ctx.principal.memberId : (input.assignee ?? null);
  const status = input.status ?? null;
  const scope = ['cards', ctx.principal.orgId, boardId, status, assignee, milestoneId];
  const at = readCursor(input.cursor, scope);
  if (at) checkPosition(at, 'timestamptz');
  const limit = pageLimit(input);
  const shape: CardListShape = { board: boardId !== null, status: status !== null, milestone: milestoneId !== null, assignee: assignee !== null, at: at !== undefined, limit };
  const values = { org: ctx.principal.orgId, board: boardId, status, milestone: milestoneId, assignee, key: at?.key ?? null, id: at?.id ?? null };
  return pageJson(await cardPage.executeTakeFirst(ctx.db, shape, values), scope);
}

/** What the list's SQL text depends on: which filters apply, and the page size. */
interface CardListShape {
  board: boolean;
  status: boolean;
  milestone: boolean;
  assignee: boolean;
  at: boolean;
  limit: number;
}

type CardListValues = {
  org: string;
  board: string | null;
  status: WorkflowStatus | null;
  milestone: string | null;
  assignee: string | null;
  key: string | number | null;
  id: string | null;
};

const cardPage = new QueryTemplate('listCards', (db, shape: CardListShape, v: CardListValues) => {
  let q = cardsJoined(db, v.org).select(['c.created_at', 'c.id', cardJson.as('json'), pageNumber('c.created_at', 'c.id')]);
  if (shape.board) q = q.where('c.board_id', '=', v.board!);
  if (shape.status) q = q.where('c.workflow_status', '=', v.status!);
  if (shape.milestone) q = q.where('c.milestone_id', '=', v.milestone!);
  if (shape.assignee) {
    q = q.where(({ exists, selectFrom }) =>
      exists(selectFrom('card_assignees as f').select('f.card_id').whereRef('f.card_id', '=', 'c.id').where('f.member_id', '=', v.assignee!)),
    );
  }
  if (shape.at) q = q.where(keyset('c.created_at', 'c.id', { key: v.key!, id: v.id! }, 'timestamptz', '<'));
  return pageRow(db, q.orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').limit(fetchLimit(shape.limit)), 'created_at', shape.limit);
});

/**
 * A new card in `backlog`, numbered next on its board. The number comes from the board's
 * counter row, incremented in this transaction: the row lock makes concurrent creations on
 * one board take 1, 2, 3… in turn, and a rolled-back creation gives its number back.
 *
 * ```sql
 * update boards set next_ref = next_ref + 1 where org_id = $1 and id = $2 returning id, next_ref - 1
 * ```
 */
export async function createCard(ctx: Ctx, input: z.infer<typeof createCardInput>): Promise<Card> {
  const orgId = ctx.principal.orgId;
  const milestoneId = input.milestone === undefined ? null : await findMilestoneId(ctx.db, orgId, input.milestone);
  const assignees = input.assignee_ids ?? [];
  await requireMembers(ctx.db, orgId, assignees);
  const byId = hasIdPrefix(input.board, 'brd');
  const board = await ctx.db
    .updateTable('boards')
    .set({ next_ref: sql`next_ref + 1` })
    .where('org_id', '=', orgId)
    .where(byId ? 'id' : 'slug', '=', byId ? input.board : input.board.toLowerCase())
    .returning(['id', sql<number>`next_ref - 1`.as('number')])
    .executeTakeFirst();
  if (!board) throw notFound('board', input.board);
  const cardId = newId('crd');
  await ctx.db
    .insertInto('cards')
    .values({
      id: cardId,
      org_id: orgId,
      board_id: board.id,
      number: board.number,
      title: input.title,
      due_on: input.due_on ?? null,
      milestone_id: milestoneId,
    })
    .execute();
  await setAssignees(ctx.db, orgId, cardId, assignees, false);
  await insertCriteria(ctx.db, orgId, cardId, input.criteria ?? []);
  return loadCard(ctx, cardId);
}

/**
 * Deletes a card with its criteria; todos that mirrored them stay, unlinked. The mirroring
 * todos are locked before the cascade reaches the criteria: todo first, then criterion, the
 * order completing a todo takes, so the two cannot deadlock.
 */
export async function deleteCard(ctx: Ctx, input: z.infer<typeof cardKeyInput>): Promise<void> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id, true);
  await ctx.db.selectFrom('todos').select('id').where('org_id', '=', ctx.principal.orgId).where('card_id', '=', card.id).forUpdate().execute();
  await ctx.db.deleteFrom('cards').where('org_id', '=', ctx.principal.orgId).where('id', '=', card.id).execute();
}
