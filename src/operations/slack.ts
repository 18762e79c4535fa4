import { z } from 'zod';
import {
  subscribedMilestoneRefs,
  subscribeInput,
  subscribeMilestone,
  subscribeResultSchema,
  unsubscribeInput,
  unsubscribeMilestone,
} from '../domain/slack-subscriptions.js';
import {
  channelSubscriptions,
  channelSubscriptionsInput,
  channelSubscriptionsResult,
  subscribeBoard,
  subscribeBoardInput,
  subscribeBoardResult,
  unsubscribeBoard,
  unsubscribeBoardInput,
} from '../domain/board-subscriptions.js';
import { defineCoreOperation } from './operation.js';

/**
 * Operations only the Slack face runs (through `callOperation` and `execute`, like every other
 * operation): cores without an HTTP binding, so no made-up method or path. They are kept out
 * of the public table on purpose: the contract defines no /v1 endpoint, MCP tool or CLI
 * command for channel subscriptions; offering them there is a binding (`defineOperation`'s
 * method, path and parts) and a line in the table.
 */
export const subscribeMilestoneOp = defineCoreOperation({
  name: 'subscribeMilestone',
  summary: "Subscribe a Slack channel to a milestone's status summaries (daily or weekly)",
  group: 'milestones',
  scope: 'write',
  input: subscribeInput,
  output: subscribeResultSchema,
  idempotent: true,
  run: (ctx, input) => subscribeMilestone(ctx, input),
});

export const unsubscribeMilestoneOp = defineCoreOperation({
  name: 'unsubscribeMilestone',
  summary: "Stop a Slack channel's summaries of a milestone",
  group: 'milestones',
  scope: 'write',
  input: unsubscribeInput,
  idempotent: true,
  destructive: true,
  run: (ctx, input) => unsubscribeMilestone(ctx, input),
});

/** The milestones of the channels the caller subscribed, for their Home tab. */
export const subscribedMilestonesOp = defineCoreOperation({
  name: 'listSubscribedMilestones',
  summary: 'The refs of the milestones whose summaries the caller subscribed a channel to',
  group: 'milestones',
  scope: 'read',
  readOnly: true,
  input: z.object({ limit: z.number().int().min(1).max(100) }),
  output: z.object({ refs: z.array(z.string()) }),
  run: async (ctx, input) => ({ refs: await subscribedMilestoneRefs(ctx, input.limit) }),
});

/** Subscribe a Slack channel to a board's card events (contract §11): `/tack subscribe <board>`. */
export const subscribeBoardOp = defineCoreOperation({
  name: 'subscribeBoard',
  summary: "Subscribe a Slack channel to a board's card events (one thread per card)",
  group: 'boards',
  scope: 'write',
  input: subscribeBoardInput,
  output: subscribeBoardResult,
  idempotent: true,
  run: (ctx, input) => subscribeBoard(ctx, input),
});

export const unsubscribeBoardOp = defineCoreOperation({
  name: 'unsubscribeBoard',
  summary: "Stop a Slack channel's card events of a board",
  group: 'boards',
  scope: 'write',
  input: unsubscribeBoardInput,
  idempotent: true,
  destructive: true,
  run: (ctx, input) => unsubscribeBoard(ctx, input),
});

/** `/tack subscriptions`: the boards a channel follows. */
export const channelSubscriptionsOp = defineCoreOperation({
  name: 'listChannelSubscriptions',
  summary: 'The boards whose card events a Slack channel gets',
  group: 'boards',
  scope: 'read',
  readOnly: true,
  input: channelSubscriptionsInput,
  output: channelSubscriptionsResult,
  run: (ctx, input) => channelSubscriptions(ctx, input),
});
