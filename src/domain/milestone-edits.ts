import { z } from 'zod';
import { sql, type Updateable } from 'kysely';
import type { MilestonesTable } from '../db/schema.js';
import type { Ctx } from './context.js';
import { uniqueViolation } from '../db/errors.js';
import { AppError } from './errors.js';
import { isoDate, label } from './fields.js';
import { findMilestone, getMilestoneStatus, milestoneKey, milestoneRef, type Milestone } from './milestones.js';
import { MILESTONE_KINDS } from '../vocabulary.js';

export const updateMilestoneInput = z.object({
  milestone: milestoneKey.describe('The milestone to change: its ref (or id)'),
  ref: milestoneRef.optional().describe('A new ref; channel subscriptions follow it, cards show it'),
  name: label(200).optional(),
  kind: z.enum(MILESTONE_KINDS).optional(),
  ends_on: isoDate.nullable().optional(),
});

export const deleteMilestoneInput = z.object({ ref: milestoneKey });

/**
 * Renames a milestone, changes its kind or its end date. Slack subscriptions name a
 * milestone by its ref, so a new ref carries them along in the same transaction.
 */
export async function updateMilestone(ctx: Ctx, input: z.infer<typeof updateMilestoneInput>): Promise<Milestone> {
  const { milestone: key, ...fields } = input;
  const orgId = ctx.principal.orgId;
  const current = await findMilestone(ctx.db, orgId, key, true);
  const patch: Updateable<MilestonesTable> = { ...fields };
  try {
    await ctx.db
      .updateTable('milestones')
      .set({ ...patch, updated_at: ctx.clock().toISOString() })
      .where('org_id', '=', orgId)
      .where('id', '=', current.id)
      .execute();
  } catch (err) {
    if (uniqueViolation(err) !== undefined) throw new AppError('milestone_conflict', 409, 'Another milestone already has that ref.');
    throw err;
  }
  if (input.ref !== undefined && input.ref !== current.ref) {
    await ctx.db
      .updateTable('slack_subscriptions')
      .set({ milestone_ref: input.ref, updated_at: ctx.clock().toISOString() })
      .where('org_id', '=', orgId)
      .where(sql<string>`lower(milestone_ref)`, '=', current.ref.toLowerCase())
      .execute();
  }
  return getMilestoneStatus(ctx, { ref: current.id });
}

/**
 * Deletes a milestone. Its cards stay, out of any milestone (and marked changed); channel
 * subscriptions to it end with it, so no summary is tried for a milestone that is gone.
 */
export async function deleteMilestone(ctx: Ctx, input: z.infer<typeof deleteMilestoneInput>): Promise<void> {
  const orgId = ctx.principal.orgId;
  const milestone = await findMilestone(ctx.db, orgId, input.ref, true);
  const now = ctx.clock().toISOString();
  await ctx.db.updateTable('cards').set({ milestone_id: null, updated_at: now }).where('org_id', '=', orgId).where('milestone_id', '=', milestone.id).execute();
  await ctx.db
    .deleteFrom('slack_subscriptions')
    .where('org_id', '=', orgId)
    .where(sql<string>`lower(milestone_ref)`, '=', milestone.ref.toLowerCase())
    .execute();
  await ctx.db.deleteFrom('milestones').where('org_id', '=', orgId).where('id', '=', milestone.id).execute();
}
