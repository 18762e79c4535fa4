import { z } from 'zod';
import {
  subscribedMilestoneRefs,
  subscribeInput,
  subscribeMilestone,
  subscribeResultSchema,
  unsubscribeInput,
  unsubscribeMilestone,
} from '../domain/slack-subscriptions.js';
import { defineOperation } from './operation.js';

/**
 * Operations only the Slack face runs (through `execute`, like every other operation). They
 * are kept out of the public table on purpose: the contract defines no /v1 endpoint, MCP
 * tool or CLI command for channel subscriptions; adding them there is one line if it does.
 */
export const subscribeMilestoneOp = defineOperation({
  name: 'subscribeMilestone',
  summary: "Subscribe a Slack channel to a milestone's status summaries (daily or weekly)",
  group: 'milestones',
  method: 'POST',
  path: '/milestones/{ref}/subscriptions',
  scope: 'write',
  params: subscribeInput.pick({ ref: true }),
  body: subscribeInput.omit({ ref: true }),
  output: subscribeResultSchema,
  idempotent: true,
  run: (ctx, input) => subscribeMilestone(ctx, input),
});

export const unsubscribeMilestoneOp = defineOperation({
  name: 'unsubscribeMilestone',
  summary: "Stop a Slack channel's summaries of a milestone",
  group: 'milestones',
  method: 'DELETE',
  path: '/milestones/{ref}/subscriptions/{channel_id}',
  scope: 'write',
  params: unsubscribeInput,
  run: (ctx, input) => unsubscribeMilestone(ctx, input),
});

/** The milestones of the channels the caller subscribed, for their Home tab. */
export const subscribedMilestonesOp = defineOperation({
  name: 'listSubscribedMilestones',
  summary: 'The refs of the milestones whose summaries the caller subscribed a channel to',
  group: 'milestones',
  method: 'GET',
  path: '/milestones/subscribed',
  scope: 'read',
  query: z.object({ limit: z.coerce.number().int().min(1).max(100) }),
  output: z.object({ refs: z.array(z.string()) }),
  run: async (ctx, input) => ({ refs: await subscribedMilestoneRefs(ctx, input.limit) }),
});
