import { z } from 'zod';
import { sql } from 'kysely';
import { boardKey } from './boards.js';
import { assigneeIds, assigneesOf, requireMembers, setAssignees } from './card-assignees.js';
import { moveRefusal } from './card-moves.js';
import { cardDescription, cardTitle, loadCard, type Card } from './cards.js';
import type { Ctx } from './context.js';
import { criterionTitle, insertCriteria } from './criteria.js';
import { notFound } from './errors.js';
import { key } from './fields.js';
import { keyLookup, newId } from './ids.js';
import { storeMentions } from './mentions.js';
import { findMilestoneId } from './milestones.js';
import { dueDate } from './todo-due.js';
import { WORKFLOW_STATUSES } from '../vocabulary.js';

export const createCardInput = z.object({
  board: boardKey,
  title: cardTitle,
  description: cardDescription.optional(),
  workflow_status: z
    .enum(WORKFLOW_STATUSES)
    .optional()
    .describe('The column the card starts in (backlog when absent); done on a gated board needs a human, as a move there does'),
  due_on: dueDate.optional(),
  assignee_ids: assigneeIds.optional(),
  milestone: key('milestone').optional().describe('Milestone ref'),
  criteria: z.array(criterionTitle).max(100, 'must have at most 100 criteria').optional().describe('Criterion titles, in order'),
});

/**
 * A new card, in `backlog` or the state asked for, numbered next on its board. Starting in a
 * state is judged as moving there (`moveRefusal`, the rule `moveCard` and `listCardMoves`
 * read): an agent creating straight into `done` on a gated board is refused like the move,
 * and one write with an idempotency key does what a creation and a move did in two. The
 * number comes from the board's counter row, incremented in this transaction: the row lock
 * makes concurrent creations on one board take 1, 2, 3… in turn, and a rolled-back creation
 * (a refused gate too) gives its number back. `@name` mentions in the description are stored
 * as `@mem_…`, as a comment's are.
 *
 * ```sql
 * update boards set next_ref = next_ref + 1 where org_id = $1 and id = $2 returning id, gated, next_ref - 1
 * ```
 */
export async function createCard(ctx: Ctx, input: z.infer<typeof createCardInput>): Promise<Card> {
  const orgId = ctx.principal.orgId;
  const milestoneId = input.milestone === undefined ? null : await findMilestoneId(ctx.db, orgId, input.milestone);
  const assignees = assigneesOf(ctx.principal, input.assignee_ids ?? []);
  await requireMembers(ctx.db, orgId, assignees);
  const { byId, value } = keyLookup(input.board, 'brd');
  const board = await ctx.db
    .updateTable('boards')
    .set({ next_ref: sql`next_ref + 1` })
    .where('org_id', '=', orgId)
    .where(byId ? 'id' : 'slug', '=', value)
    .returning(['id', 'gated', sql<number>`next_ref - 1`.as('number')])
    .executeTakeFirst();
  if (!board) throw notFound('board', input.board);
  const refusal = moveRefusal(ctx.principal, board.gated, input.workflow_status);
  if (refusal) throw refusal;
  const cardId = newId('crd');
  await ctx.db
    .insertInto('cards')
    .values({
      id: cardId,
      org_id: orgId,
      board_id: board.id,
      number: board.number,
      title: input.title,
      description: input.description == null ? null : await storeMentions(ctx.db, orgId, input.description),
      ...(input.workflow_status === undefined ? {} : { workflow_status: input.workflow_status }),
      due_on: input.due_on ?? null,
      milestone_id: milestoneId,
    })
    .execute();
  await setAssignees(ctx.db, orgId, cardId, assignees, false);
  await insertCriteria(ctx.db, orgId, cardId, input.criteria ?? []);
  return loadCard(ctx, cardId);
}
