import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import { boardKey, findBoard } from './boards.js';
import type { Ctx } from './context.js';
import { AppError } from './errors.js';
import { newId } from './ids.js';
import { requireWriter } from './permissions.js';
import { pauseChannelSubscription } from './slack-subscriptions.js';
import { toIso } from './time.js';

/**
 * Channel subscriptions to a board (contract §11): the channel gets the board's card events,
 * one thread per card. Who may: a member with write on the organization (the same rule as a
 * milestone's summaries), since the board's cards are the organization's to read anyway.
 */

const channelId = z.string().regex(/^[CGD][A-Z0-9]{2,30}$/, 'must be a Slack channel id such as C012AB3CD');

export const boardSubscriptionSchema = z.object({
  id: z.string(),
  board_id: z.string(),
  board_slug: z.string(),
  board_name: z.string(),
  channel_id: z.string(),
  created_by: z.string(),
  created_at: z.string(),
  /** Set while paused: Slack refused the channel (`paused_reason`, e.g. not_in_channel). */
  paused_at: z.string().nullable(),
  paused_reason: z.string().nullable(),
});
export type BoardSubscription = z.infer<typeof boardSubscriptionSchema>;

export const subscribeBoardInput = z.object({ board: boardKey, channel_id: channelId });
export const unsubscribeBoardInput = z.object({ board: boardKey, channel_id: channelId });
export const channelSubscriptionsInput = z.object({ channel_id: channelId });

export const subscribeBoardResult = z.object({
  subscription: boardSubscriptionSchema,
  created: z.boolean(),
  /** It was paused (Slack had refused the channel) and subscribing again resumed it. */
  resumed: z.boolean(),
});

export const channelSubscriptionsResult = z.object({ subscriptions: z.array(boardSubscriptionSchema) });

function subscriptionsOf(db: Kysely<Database>, orgId: string) {
  return db
    .selectFrom('slack_board_subscriptions as s')
    .innerJoin('boards as b', (j) => j.onRef('b.id', '=', 's.board_id').onRef('b.org_id', '=', 's.org_id'))
    .select(['s.id', 's.board_id', 'b.slug as board_slug', 'b.name as board_name', 's.channel_id', 's.created_by', 's.created_at', 's.paused_at', 's.paused_reason'])
    .where('s.org_id', '=', orgId);
}

function present(row: Omit<BoardSubscription, 'paused_at'> & { paused_at: string | null }): BoardSubscription {
  return { ...row, created_at: toIso(row.created_at), paused_at: row.paused_at === null ? null : toIso(row.paused_at) };
}

/**
 * Subscribes a channel to a board's card events (one row per organization, board and
 * channel; subscribing again resumes a paused one). The board must be the caller's
 * organization's (404 `board_not_found`).
 */
export async function subscribeBoard(ctx: Ctx, input: z.infer<typeof subscribeBoardInput>): Promise<z.infer<typeof subscribeBoardResult>> {
  requireWriter(ctx.principal);
  const orgId = ctx.principal.orgId;
  const board = await findBoard(ctx.db, orgId, input.board);
  const now = ctx.clock().toISOString();
  const before = await ctx.db
    .selectFrom('slack_board_subscriptions')
    .select('paused_at')
    .where('org_id', '=', orgId)
    .where('board_id', '=', board.id)
    .where('channel_id', '=', input.channel_id)
    .executeTakeFirst();
  const row = await ctx.db
    .insertInto('slack_board_subscriptions')
    .values({ id: newId('sub'), org_id: orgId, board_id: board.id, channel_id: input.channel_id, created_by: ctx.principal.memberId, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['org_id', 'board_id', 'channel_id']).doUpdateSet({ paused_at: null, paused_reason: null, updated_at: now }),
    )
    // xmax is 0 only on a freshly inserted row version: tells an insert from an update.
    .returning(['id', sql<boolean>`xmax::text <> '0'`.as('updated')])
    .executeTakeFirstOrThrow();
  const sub = await subscriptionsOf(ctx.db, orgId).where('s.id', '=', row.id).executeTakeFirstOrThrow();
  return { subscription: present(sub), created: !row.updated, resumed: row.updated && !!before?.paused_at };
}

/** Removes a channel's subscription to a board; 404 `subscription_not_found` when there is none. */
export async function unsubscribeBoard(ctx: Ctx, input: z.infer<typeof unsubscribeBoardInput>): Promise<void> {
  requireWriter(ctx.principal);
  const board = await findBoard(ctx.db, ctx.principal.orgId, input.board);
  const result = await ctx.db
    .deleteFrom('slack_board_subscriptions')
    .where('org_id', '=', ctx.principal.orgId)
    .where('board_id', '=', board.id)
    .where('channel_id', '=', input.channel_id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) {
    throw new AppError('subscription_not_found', 404, `This channel is not subscribed to the board ${board.slug}.`);
  }
}

/** A channel's board subscriptions, by board slug. */
export async function channelSubscriptions(ctx: Ctx, input: z.infer<typeof channelSubscriptionsInput>): Promise<z.infer<typeof channelSubscriptionsResult>> {
  const rows = await subscriptionsOf(ctx.db, ctx.principal.orgId).where('s.channel_id', '=', input.channel_id).orderBy('b.slug').execute();
  return { subscriptions: rows.map(present) };
}

/** A board subscription paused (`pauseChannelSubscription`). */
export const pauseBoardSubscription = (db: Kysely<Database>, sub: { id: string; orgId: string }, reason: string, now: Date): Promise<boolean> =>
  pauseChannelSubscription(db, 'slack_board_subscriptions', sub, reason, now);
