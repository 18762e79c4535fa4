import { z } from 'zod';
import { sql } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import { WORKFLOW_STATUSES, type WorkflowStatus } from '../vocabulary.js';
import { branchName } from './branch-name.js';
import { boardKey, boardsByKey, findBoard } from './boards.js';
import { ME, memberIdOf } from './card-assignees.js';
import { cardJson, cardsJoined, cardsWithDetails } from './card-query.js';
import { cardKeyIs, cardKeyOf, findCard, formatCardRef, type CardKeyKind, type CardKeyValues } from './card-refs.js';
import type { Ctx } from './context.js';
import { notFound } from './errors.js';
import { id, key, label, markdownText, pageQuery } from './fields.js';
import { keyLookup } from './ids.js';
import { findMilestoneId, milestoneKey, milestonesByKey } from './milestones.js';
import type { RawJson } from '../db/raw-json.js';
import { pageEntry, pageJson, pageRow } from './json-text.js';
import { checkPosition, decodeCursor, fetchLimit, keyset, pageLimit, positionIn, type Cursor, type Page } from './pagination.js';
import { toIso } from './time.js';

export const cardSchema = z.object({
  id: z.string(),
  ref: z.string().describe('Human reference <PREFIX>-<n>, also used in branch names'),
  board_id: z.string(),
  title: z.string(),
  workflow_status: z.enum(WORKFLOW_STATUSES),
  description: z.string().nullable().describe('Markdown; a mention is `@mem_…` (show the member’s name); render it without raw HTML, with links only to http, https and mailto; null: none'),
  gated: z.boolean().describe("The board's gate: a move to done needs a human caller"),
  criteria_done: z.number().int(),
  criteria_total: z.number().int(),
  due_on: z.string().nullable(),
  assignee_ids: z.array(z.string()),
  milestone: z.string().nullable().describe('The milestone ref, or null'),
  branch_name: z.string().describe('A git branch name for the card: its ref lower-case and its title as a slug, at most 60 characters (eng-42-sign-up-form)'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Card = z.infer<typeof cardSchema>;

export const cardKey = key('card').describe('Card id (crd_…) or ref (ENG-42)');
export const cardTitle = label(300);
/** A card's description (contract §11): Markdown, up to 20,000 code points, mentions as a comment's; null clears it. */
export const cardDescription = markdownText(20_000)
  .describe('Markdown, at most 20000 characters (Unicode code points); `@name` or `@mem_…` mentions a member and is stored as `@mem_…`')
  .nullable();

export const listCardsInput = z.object({
  ...pageQuery,
  board: boardKey.optional(),
  status: z.enum(WORKFLOW_STATUSES).optional(),
  assignee: z
    .union([z.literal(ME), id('mem')])
    .optional()
    .describe('`me` or a member id'),
  milestone: milestoneKey.optional(),
});

export const cardKeyInput = z.object({ id: cardKey });

export interface CardRow {
  id: string;
  board_id: string;
  number: number;
  title: string;
  workflow_status: WorkflowStatus;
  description: string | null;
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
    description: row.description,
    gated: row.gated,
    criteria_done: row.criteria_done,
    criteria_total: row.criteria_total,
    due_on: row.due_on,
    assignee_ids: row.assignee_ids,
    milestone: row.milestone_ref,
    branch_name: branchName(formatCardRef(row.ref_prefix, row.number), row.title),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** A card as every face shows it, by id; the caller already knows it exists. */
export async function loadCard(ctx: Ctx, cardId: string): Promise<Card> {
  const row = await cardByKey.executeTakeFirst(ctx.db, 'id', { org: ctx.principal.orgId, id: cardId, prefix: '', number: 0 });
  if (!row) throw notFound('card', cardId);
  return presentCard(row);
}

export async function getCard(ctx: Ctx, input: z.infer<typeof cardKeyInput>): Promise<Card> {
  const { by, values } = cardKeyOf(ctx.principal.orgId, input.id);
  const row = await cardByKey.executeTakeFirst(ctx.db, by, values);
  if (!row) throw notFound('card', input.id);
  return presentCard(row);
}

/** A card with everything its output shows, by id or ref, in one statement (`getCard`, `loadCard`). */
const cardByKey = new QueryTemplate('getCard', (db, by: CardKeyKind, v: CardKeyValues) => cardsWithDetails(db, v.org).where(cardKeyIs(by, v)));

/**
 * Cards newest first, filtered by board (id or slug), status, assignee (`me` or a member id)
 * and milestone (ref); each card comes as its JSON, built by Postgres (`cardJson`), and the
 * page as one row (`pageRow`). The board and milestone are found by that same statement (one
 * round trip, not three) and come back with the page, so a missing one still answers its 404,
 * and before a cursor's 400, as their own lookups did; a cursor is bound to the ids they
 * resolved to (`board=eng` and `board=brd_…` page alike).
 */
export async function listCards(ctx: Ctx, input: z.infer<typeof listCardsInput>): Promise<RawJson<Page<Card>>> {
  const orgId = ctx.principal.orgId;
  let cursor: Cursor | undefined;
  try {
    cursor = decodeCursor(input.cursor);
    if (cursor) checkPosition(cursor.at, 'timestamptz');
  } catch (err) {
    // Not a cursor of ours: a missing board or milestone still answers first (rare, so looked up apart).
    if (input.board !== undefined) await findBoard(ctx.db, orgId, input.board);
    if (input.milestone !== undefined) await findMilestoneId(ctx.db, orgId, input.milestone);
    throw err;
  }
  const board = input.board === undefined ? undefined : keyLookup(input.board, 'brd');
  const milestone = input.milestone === undefined ? undefined : keyLookup(input.milestone, 'ms');
  const assignee = input.assignee === undefined ? null : memberIdOf(ctx.principal, input.assignee);
  const status = input.status ?? null;
  const limit = pageLimit(input);
  const shape: CardListShape = {
    board: board === undefined ? null : board.byId ? 'id' : 'slug',
    status: status !== null,
    milestone: milestone === undefined ? null : milestone.byId ? 'id' : 'ref',
    assignee: assignee !== null,
    at: cursor !== undefined,
    limit,
  };
  const values = { org: orgId, board: board?.value ?? null, status, milestone: milestone?.value ?? null, assignee, key: cursor?.at.key ?? null, id: cursor?.at.id ?? null };
  const row = await cardPage.executeTakeFirst(ctx.db, shape, values);
  const boardId = row?.board_id ?? null;
  const milestoneId = row?.milestone_id ?? null;
  if (input.board !== undefined && boardId === null) throw notFound('board', input.board);
  if (input.milestone !== undefined && milestoneId === null) throw notFound('milestone', input.milestone);
  const scope = ['cards', orgId, boardId, status, assignee, milestoneId];
  if (cursor) positionIn(cursor, scope);
  return pageJson(row, scope);
}

/** What the list's SQL text depends on: which filters apply (and how a board or milestone is named), and the page size. */
interface CardListShape {
  board: 'id' | 'slug' | null;
  status: boolean;
  milestone: 'id' | 'ref' | null;
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

/**
 * `pageRow` of the cards, with the ids the board and milestone keys found (null: none),
 * each from a scalar subquery that Postgres runs once (an InitPlan):
 *
 * ```sql
 * select array_to_string(…), …, (select id from boards where org_id = $1 and slug = $2) as board_id
 * from (select array(select … from cards c … where c.board_id = (select id from boards where org_id = $1 and slug = $2) …) as a offset 0) p
 * ```
 */
const cardPage = new QueryTemplate('listCards', (db, shape: CardListShape, v: CardListValues) => {
  const boardId = () => boardsByKey(db, shape.board === 'id', v.org, v.board!).select('id');
  const milestoneId = () => milestonesByKey(db, shape.milestone === 'id', v.org, v.milestone!).select('id');
  let q = cardsJoined(db, v.org).select(pageEntry(cardJson, 'c.created_at', 'c.id'));
  if (shape.board) q = q.where('c.board_id', '=', boardId());
  if (shape.status) q = q.where('c.workflow_status', '=', v.status!);
  if (shape.milestone) q = q.where('c.milestone_id', '=', milestoneId());
  if (shape.assignee) {
    q = q.where(({ exists, selectFrom }) =>
      exists(selectFrom('card_assignees as f').select('f.card_id').whereRef('f.card_id', '=', 'c.id').where('f.member_id', '=', v.assignee!)),
    );
  }
  if (shape.at) q = q.where(keyset('c.created_at', 'c.id', { key: v.key!, id: v.id! }, 'timestamptz', '<'));
  return pageRow(db, q.orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').limit(fetchLimit(shape.limit)), shape.limit).select([
    (shape.board ? boardId() : sql<null>`null`).as('board_id'),
    (shape.milestone ? milestoneId() : sql<null>`null`).as('milestone_id'),
  ]);
});

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
