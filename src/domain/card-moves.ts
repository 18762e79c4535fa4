import { z } from 'zod';
import type { Updateable } from 'kysely';
import type { CardsTable } from '../db/schema.js';
import { assigneeIds, requireMembers, setAssignees } from './card-assignees.js';
import { findCard } from './card-refs.js';
import { cardKey, cardTitle, loadCard, type Card } from './cards.js';
import { WORKFLOW_STATUSES } from './vocabulary.js';
import type { Ctx, Principal } from './context.js';
import { forbidden, validationFailed } from './errors.js';
import { isoDate } from './fields.js';
import { findMilestoneId } from './milestones.js';

export const moveCardInput = z.object({
  id: cardKey,
  workflow_status: z.enum(WORKFLOW_STATUSES).optional().describe('Any state to any state; done on a gated board needs a human'),
  title: cardTitle.optional(),
  due_on: isoDate.nullable().optional().describe('null clears it'),
  milestone: z.string().trim().min(1).max(64).nullable().optional().describe('Milestone ref; null takes the card out'),
  assignee_ids: assigneeIds.optional().describe('Replaces the assignees'),
});

export const gatedMoveRequiresHuman = () =>
  forbidden('gated_move_requires_human', 'This board is gated: only a human can move a card to done. Ask a person to make this move.');

/** The gate: on a gated board, an agent may not move a card to done, whatever its state now. */
export function checkGate(principal: Principal, gated: boolean, to: string | undefined): void {
  if (to === 'done' && gated && principal.agent) throw gatedMoveRequiresHuman();
}

/**
 * Moves a card (any state to any state) and changes its title, due date, milestone or
 * assignees. The gate is checked before anything is written, so a refused move changes
 * nothing that came with it either.
 */
export async function moveCard(ctx: Ctx, input: z.infer<typeof moveCardInput>): Promise<Card> {
  const { id: _key, ...fields } = input;
  if (Object.values(fields).every((v) => v === undefined)) {
    throw validationFailed([
      { field: 'body', code: 'empty', message: 'give at least one of workflow_status, title, due_on, milestone, assignee_ids' },
    ]);
  }
  const orgId = ctx.principal.orgId;
  const card = await findCard(ctx.db, orgId, input.id, true);
  checkGate(ctx.principal, card.gated, input.workflow_status);
  const patch: Updateable<CardsTable> = {};
  if (input.workflow_status !== undefined) patch.workflow_status = input.workflow_status;
  if (input.title !== undefined) patch.title = input.title;
  if (input.due_on !== undefined) patch.due_on = input.due_on;
  if (input.milestone !== undefined) {
    patch.milestone_id = input.milestone === null ? null : await findMilestoneId(ctx.db, orgId, input.milestone);
  }
  if (input.assignee_ids !== undefined) {
    await requireMembers(ctx.db, orgId, input.assignee_ids);
    await setAssignees(ctx.db, card.id, input.assignee_ids, true);
  }
  await ctx.db
    .updateTable('cards')
    .set({ ...patch, updated_at: ctx.clock().toISOString() })
    .where('org_id', '=', orgId)
    .where('id', '=', card.id)
    .execute();
  return loadCard(ctx, card.id);
}
