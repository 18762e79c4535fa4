import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { z } from 'zod';
import type { Ctx } from './context.js';
import { AppError } from './errors.js';
import { label, timeZone } from './fields.js';
import { newId } from './ids.js';
import { findMilestone } from './milestones.js';
import { requireWriter } from './permissions.js';
import { toIso } from './time.js';
import { CADENCES } from '../vocabulary.js';

const channelId = z.string().regex(/^[CGD][A-Z0-9]{2,30}$/, 'must be a Slack channel id such as C012AB3CD');

export const subscriptionSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  milestone_ref: z.string(),
  channel_id: z.string(),
  cadence: z.enum(CADENCES),
  tz: z.string(),
  created_by: z.string(),
  created_at: z.string(),
  /** Set while paused: Slack refused the channel (`paused_reason`, e.g. not_in_channel). */
  paused_at: z.string().nullable(),
  paused_reason: z.string().nullable(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

export const subscribeInput = z.object({
  ref: label(64),
  channel_id: channelId,
  cadence: z.enum(CADENCES).default('weekly'),
  tz: timeZone,
});

export const unsubscribeInput = z.object({
  ref: label(64),
  channel_id: channelId,
});

export const subscribeResultSchema = z.object({
  subscription: subscriptionSchema,
  created: z.boolean(),
  /** It was paused (Slack had refused the channel) and subscribing again resumed it. */
  resumed: z.boolean(),
});

const columns = ['id', 'org_id', 'milestone_ref', 'channel_id', 'cadence', 'tz', 'created_by', 'created_at', 'paused_at', 'paused_reason'] as const;

/**
 * Subscribes a channel to a milestone's summaries, or changes the cadence and time zone of
 * its subscription (the latest subscriber's). One row per organization, milestone and channel.
 * The milestone must exist in the caller's organization (404 `milestone_not_found`); its ref
 * is stored as created, so `m3` and `M3` are one subscription. Subscribing again resumes a
 * paused subscription.
 */
export async function subscribeMilestone(ctx: Ctx, input: z.infer<typeof subscribeInput>): Promise<z.infer<typeof subscribeResultSchema>> {
  requireWriter(ctx.principal);
  const milestone = await findMilestone(ctx.db, ctx.principal.orgId, input.ref);
  const now = ctx.clock().toISOString();
  const before = await ctx.db
    .selectFrom('slack_subscriptions')
    .select('paused_at')
    .where('org_id', '=', ctx.principal.orgId)
    .where('milestone_ref', '=', milestone.ref)
    .where('channel_id', '=', input.channel_id)
    .executeTakeFirst();
  const row = await ctx.db
    .insertInto('slack_subscriptions')
    .values({
      id: newId('sub'),
      org_id: ctx.principal.orgId,
      milestone_ref: milestone.ref,
      channel_id: input.channel_id,
      cadence: input.cadence,
      tz: input.tz,
      created_by: ctx.principal.memberId,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['org_id', 'milestone_ref', 'channel_id']).doUpdateSet((eb) => ({
        cadence: eb.ref('excluded.cadence'),
        tz: eb.ref('excluded.tz'),
        created_by: eb.ref('excluded.created_by'),
        paused_at: null,
        paused_reason: null,
        updated_at: now,
      })),
    )
    // xmax is 0 only on a freshly inserted row version: tells an insert from an update.
    .returning([...columns, sql<boolean>`xmax::text <> '0'`.as('updated')])
    .executeTakeFirstOrThrow();
  const { updated, ...sub } = row;
  return {
    subscription: { ...sub, created_at: toIso(sub.created_at), paused_at: null, paused_reason: null },
    created: !updated,
    resumed: !!updated && !!before?.paused_at,
  };
}

/**
 * Pauses a channel subscription Slack will not let the bot post to (a milestone's summaries,
 * `slack_subscriptions`, or a board's card threads, `slack_board_subscriptions`): its job then
 * skips it until someone subscribes the channel again. True only for the caller that paused
 * it (so its subscriber is told once, however many workers saw the refusal).
 *
 * ```sql
 * update <table> set paused_at = $now, paused_reason = $reason
 * where id = $1 and org_id = $2 and paused_at is null returning id
 * ```
 */
export async function pauseChannelSubscription(
  db: Kysely<Database>,
  table: 'slack_subscriptions' | 'slack_board_subscriptions',
  sub: { id: string; orgId: string },
  reason: string,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const row = await db
    .updateTable(table)
    .set({ paused_at: at, paused_reason: reason.slice(0, 200), updated_at: at })
    .where('id', '=', sub.id)
    .where('org_id', '=', sub.orgId)
    .where('paused_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A milestone summaries' subscription paused (`pauseChannelSubscription`). */
export const pauseSubscription = (db: Kysely<Database>, sub: { id: string; orgId: string }, reason: string, now: Date): Promise<boolean> =>
  pauseChannelSubscription(db, 'slack_subscriptions', sub, reason, now);

/**
 * Removes a channel's subscription to a milestone (its ref matched case-insensitively, like
 * milestone refs everywhere, and even when the milestone is gone); 404 when there is none.
 */
export async function unsubscribeMilestone(ctx: Ctx, input: z.infer<typeof unsubscribeInput>): Promise<void> {
  requireWriter(ctx.principal);
  const result = await ctx.db
    .deleteFrom('slack_subscriptions')
    .where('org_id', '=', ctx.principal.orgId)
    .where(sql<string>`lower(milestone_ref)`, '=', input.ref.toLowerCase())
    .where('channel_id', '=', input.channel_id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) {
    throw new AppError('subscription_not_found', 404, `This channel is not subscribed to ${input.ref}.`);
  }
}

/**
 * The milestone refs of the caller's own subscriptions (the channels they subscribed), in
 * ref order, at most `limit`: what their Slack Home tab shows the status of.
 *
 * ```sql
 * select distinct milestone_ref from slack_subscriptions where org_id = $1 and created_by = $2 order by milestone_ref limit $3
 * ```
 */
export async function subscribedMilestoneRefs(ctx: Ctx, limit: number): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('slack_subscriptions')
    .select('milestone_ref')
    .distinct()
    .where('org_id', '=', ctx.principal.orgId)
    .where('created_by', '=', ctx.principal.memberId)
    .orderBy('milestone_ref')
    .limit(limit)
    .execute();
  return rows.map((r) => r.milestone_ref);
}
