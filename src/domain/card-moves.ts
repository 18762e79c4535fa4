import { z } from 'zod';
import type { Updateable } from 'kysely';
import type { CardsTable } from '../db/schema.js';
import { assigneeIds, assigneesOf, requireMembers, setAssignees } from './card-assignees.js';
import { findCard } from './card-refs.js';
import { cardDescription, cardKey, cardKeyInput, cardTitle, loadCard, type Card } from './cards.js';
import { WORKFLOW_STATUSES, type WorkflowStatus } from '../vocabulary.js';
import type { Ctx, Principal } from './context.js';
import { forbidden, type AppError } from './errors.js';
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
 * nothing that came with it either. `@name` mentions in a new description are stored as
 * `@mem_…`, as a comment's are.
 */
export async function moveCard(ctx: Ctx, input: z.infer<typeof moveCardInput>): Promise<Card> {
  const orgId = ctx.principal.orgId;
  const card = await findCard(ctx.db, orgId, input.id, true);
  const refusal = moveRefusal(ctx.principal, card.gated, input.workflow_status);
  if (refusal) throw refusal;
  const patch: Updateable<CardsTable> = {};
  if (input.workflow_status !== undefined) patch.workflow_status = input.workflow_status;
  if (input.title !== undefined) patch.title = input.title;
  if (input.description !== undefined) patch.description = input.description === null ? null : await storeMentions(ctx.db, orgId, input.description);
  if (input.due_on !== undefined) patch.due_on = input.due_on;
  if (input.milestone !== undefined) {
    patch.milestone_id = input.milestone === null ? null : await findMilestoneId(ctx.db, orgId, input.milestone);
  }
  if (input.assignee_ids !== undefined) {
    const assignees = assigneesOf(ctx.principal, input.assignee_ids);
    await requireMembers(ctx.db, orgId, assignees);
    await setAssignees(ctx.db, orgId, card.id, assignees, true);
  }
  await ctx.db
    .updateTable('cards')
    .set({ ...patch, updated_at: ctx.clock().toISOString() })
    .where('org_id', '=', orgId)
    .where('id', '=', card.id)
    .execute();
  return loadCard(ctx, card.id);
}
