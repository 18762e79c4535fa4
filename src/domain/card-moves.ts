import { z } from 'zod';
import { sql, type Kysely, type QueryCreator, type Updateable } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import type { CardsTable, Database } from '../db/schema.js';
import { cardsWithDetails } from './card-query.js';
import { assigneeIds, assigneesOf, requireMembers, setAssignees } from './card-assignees.js';
import { cardKeyIs, cardKeyOf, findCard, type CardKeyKind, type CardKeyValues } from './card-refs.js';
import { cardDescription, cardKey, cardKeyInput, cardTitle, getCard, loadCard, presentCard, type Card, type CardRow } from './cards.js';
import { WORKFLOW_STATUSES, type WorkflowStatus } from '../vocabulary.js';
import type { Ctx, Principal } from './context.js';
import { forbidden, notFound, unlessMissing, type AppError } from './errors.js';
import { scopeRefusal, writerRefusal } from './permissions.js';
import { key } from './fields.js';
import { dueDate } from './todo-due.js';
import { findMilestoneId } from './milestones.js';
import { storeMentions } from './mentions.js';

export const moveCardInput = z.object({
  id: cardKey,
  workflow_status: z.enum(WORKFLOW_STATUSES).optional().describe('Any state to any state; done on a gated board needs a human'),
  title: cardTitle.optional(),
  description: cardDescription.optional().describe('Markdown, at most 20000 characters (Unicode code points); `@name` or `@mem_…` mentions a member and is stored as `@mem_…`; null clears it'),
  due_on: dueDate.nullable().optional().describe('A date as YYYY-MM-DD, or today or tomorrow in your time zone; null clears it'),
  milestone: key('milestone').nullable().optional().describe('Milestone ref; null takes the card out'),
  assignee_ids: assigneeIds.optional().describe('Replaces the assignees: member ids; `me` is you'),
});

export const gatedMoveRequiresHuman = () =>
  forbidden('gated_move_requires_human', 'This board is gated: only a human can move a card to done. Ask a person to make this move.');

/**
 * Why this caller may not move a card on a board (gated or not) to `to`, or undefined when
 * it may: the token's scope, the caller's role, then the gate (on a gated board, an agent
 * may not move a card to done, whatever its state now). `moveCard` enforces it and
 * `listCardMoves` shows it, so the two cannot disagree.
 */
export function moveRefusal(principal: Principal, gated: boolean, to: WorkflowStatus | undefined): AppError | undefined {
  return (
    scopeRefusal(principal, 'write') ??
    writerRefusal(principal) ??
    (to === 'done' && gated && principal.agent ? gatedMoveRequiresHuman() : undefined)
  );
}

export const cardMovesSchema = z.object({
  data: z.array(
    z.object({
      workflow_status: z.enum(WORKFLOW_STATUSES),
      allowed: z.boolean(),
      code: z.string().nullable().describe('The error code a move there would be refused with; null when allowed'),
    }),
  ),
});
export type CardMoves = z.infer<typeof cardMovesSchema>;

/**
 * Where the caller may move a card, one entry per state in workflow order, and why not
 * where not (the refusal's error code). Each entry is `moveRefusal`, the rule `moveCard`
 * enforces, so "allowed" means that move succeeds: the card's current state too (a move
 * there changes nothing), unless that move is refused as well (an agent's move to done on a
 * gated board, whatever the card's state; a viewer's move anywhere).
 */
export async function listCardMoves(ctx: Ctx, input: z.infer<typeof cardKeyInput>): Promise<CardMoves> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  return movesOn(ctx.principal, card.gated);
}

/** Every state with `moveRefusal`'s answer for this caller on a board (gated or not). */
export function movesOn(principal: Principal, gated: boolean): CardMoves {
  return {
    data: WORKFLOW_STATUSES.map((status) => {
      const refusal = moveRefusal(principal, gated, status);
      return { workflow_status: status, allowed: refusal === undefined, code: refusal?.code ?? null };
    }),
  };
}

/**
 * Moves a card (any state to any state) and changes its title, due date, milestone or
 * assignees. The gate is checked before anything is written, so a refused move changes
 * nothing that came with it either: what refuses the move on any board (scope, role) before
 * any statement, and the gate's refusal in the update itself, which then changes no row
 * (one statement: no read of the card first). `@name` mentions in a new description are
 * stored as `@mem_…`, as a comment's are.
 */
export async function moveCard(ctx: Ctx, input: z.infer<typeof moveCardInput>): Promise<Card> {
  const orgId = ctx.principal.orgId;
  const refusal = moveRefusal(ctx.principal, false, input.workflow_status);
  if (refusal) throw refusal;
  // The refusal a gated board adds, if any: the update leaves gated boards' cards alone then.
  const gateRefusal = moveRefusal(ctx.principal, true, input.workflow_status);
  const patch: CardPatch = {};
  if (input.workflow_status !== undefined) patch.workflow_status = input.workflow_status;
  if (input.title !== undefined) patch.title = input.title;
  if (input.description !== undefined) patch.description = input.description === null ? null : await storeMentions(ctx.db, orgId, input.description);
  if (input.due_on !== undefined) patch.due_on = input.due_on;
  if (input.milestone !== undefined) {
    patch.milestone_id = input.milestone === null ? null : await findMilestoneId(ctx.db, orgId, input.milestone);
  }
  const assignees = input.assignee_ids === undefined ? undefined : assigneesOf(ctx.principal, input.assignee_ids);
  if (assignees) await requireMembers(ctx.db, orgId, assignees);
  const { by, values } = cardKeyOf(orgId, input.id);
  const fields = (Object.keys(patch) as (keyof CardPatch)[]).sort();
  const shape = { by, fields, ungatedOnly: gateRefusal !== undefined };
  const row = { ...values, ...(patch as Record<string, string | null>), updated_at: ctx.clock().toISOString() };
  // Its events' "before" (`ctx.reportBefore`): with new assignees, the card as read now; without, from the update's own statement.
  const before = assignees && ctx.reportBefore ? await unlessMissing(getCard(ctx, { id: input.id })) : undefined;
  // Without new assignees the update answers the card as `loadCard` reads it, in the same statement.
  const moved = assignees ? await cardUpdate.executeTakeFirst(ctx.db, shape, row) : await cardMoved.executeTakeFirst(ctx.db, shape, row);
  if (!moved) {
    // No row changed: no such card, or the gate refused.
    const card = await findCard(ctx.db, orgId, input.id);
    if (gateRefusal && card.gated) throw gateRefusal;
    throw notFound('card', input.id);
  }
  if (!assignees) {
    const after = moved as MovedRow;
    await ctx.reportBefore?.(presentCard(cardBefore(after)));
    return presentCard(after);
  }
  if (before) await ctx.reportBefore?.(before);
  await setAssignees(ctx.db, orgId, moved.id, assignees, true);
  return loadCard(ctx, moved.id);
}

/**
 * The card's columns a move may change, each with where `cardMoved` reads it as it was before
 * the move (`withOldValues`: the card as `o`, its milestone as `om`), returned as `old_<column>`.
 */
const BEFORE_MOVE = {
  workflow_status: 'o.workflow_status',
  title: 'o.title',
  description: 'o.description',
  due_on: 'o.due_on',
  milestone_ref: 'om.ref',
  updated_at: 'o.updated_at',
} as const;
type MovedColumn = keyof typeof BEFORE_MOVE;
const MOVED_COLUMNS = Object.keys(BEFORE_MOVE) as MovedColumn[];

/** The moved card's row, with what the move changed as it was (`old_…`). */
type MovedRow = CardRow & { [C in MovedColumn as `old_${C}`]: CardRow[C] };

/** The moved card as it was: what the move changed, as it was; the rest (board, criteria, assignees) a move leaves alone. */
function cardBefore(row: MovedRow): CardRow {
  return { ...row, ...Object.fromEntries(MOVED_COLUMNS.map((c) => [c, row[`old_${c}`]])) };
}

/** The columns `moveCard` may change. */
type CardPatch = Pick<Updateable<CardsTable>, 'workflow_status' | 'title' | 'description' | 'due_on' | 'milestone_id'>;

/**
 * `moveCard`'s update, by id or ref, of the fields given, skipping cards of gated boards when
 * `ungatedOnly`; answers the card's id when a row changed:
 *
 * ```sql
 * update cards as c set <fields> = …, updated_at = $1 from boards as b
 * where b.id = c.board_id and c.org_id = $2 and <cardKeyIs> [and b.gated = false] returning c.id
 * ```
 */
type MoveShape = { by: CardKeyKind; fields: (keyof CardPatch)[]; ungatedOnly: boolean };
type MoveValues = CardKeyValues & Record<string, string | number | null>;

/** The update of `cardUpdate` and `cardMoved`, answering the changed card's row (`returning c.*`). */
function updateCard(db: Kysely<Database> | QueryCreator<Database>, shape: MoveShape, v: MoveValues) {
  return db
    .updateTable('cards as c')
    .from('boards as b')
    .set({ ...Object.fromEntries(shape.fields.map((f) => [f, v[f]])), updated_at: v.updated_at as string })
    .whereRef('b.id', '=', 'c.board_id')
    .where('c.org_id', '=', v.org)
    .where(cardKeyIs(shape.by, v))
    .$if(shape.ungatedOnly, (qb) => qb.where('b.gated', '=', false));
}

const cardUpdate = new QueryTemplate('moveCard', (db, shape: MoveShape, v: MoveValues) => updateCard(db, shape, v).returning('c.id'));

/**
 * `cardUpdate` answering the moved card as `loadCard` reads it, in one statement: the update
 * is a CTE named `cards`, which the card's reading (`cardsWithDetails`) then reads instead of
 * the table, so it sees the card as the update left it.
 *
 * ```sql
 * with cards as (update cards as c set … from boards as b where … returning c.*)
 * select <cardsWithDetails> from cards as c join boards as b … where c.org_id = $org
 * ```
 */
const cardMoved = new QueryTemplate('moveCardAnswered', (db, shape: MoveShape, v: MoveValues) =>
  // The CTE's rows are the table's (`returning c.*`): read as `cards`, they are what the table holds now.
  cardsWithDetails(db.with('cards', (qc) => withOldValues(updateCard(qc, shape, v)).returningAll('c')) as unknown as QueryCreator<Database>, v.org).select(
    MOVED_COLUMNS.map((c) => sql.ref(`c.old_${c}`).as(`old_${c}`)),
  ),
);

/**
 * The update, also returning the card's changeable columns as they were (`old_…`, and the old
 * milestone's ref): the same row joined as `o`, which the statement reads in its snapshot, from
 * before the update (so the event's "before" needs no read of its own). Like a read before
 * the update, it is the card as last committed when the statement began.
 *
 * ```sql
 * update cards as c set … from boards as b, cards as o left join milestones as om on om.id = o.milestone_id
 * where … and o.id = c.id returning c.*, o.workflow_status as old_workflow_status, …, om.ref as old_milestone_ref
 * ```
 */
function withOldValues(update: ReturnType<typeof updateCard>) {
  return update
    .from('cards as o')
    .leftJoin('milestones as om', 'om.id', 'o.milestone_id')
    .whereRef('o.id', '=', 'c.id')
    .returning(MOVED_COLUMNS.map((c) => sql.ref(BEFORE_MOVE[c]).as(`old_${c}`)));
}
