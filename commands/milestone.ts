import { CADENCES } from '../src/vocabulary.js';
import { subscribeMilestoneOp, unsubscribeMilestoneOp } from '../src/operations/slack.js';
import { UsageError, type CommandContext, type CommandHandler, type SlackReply } from '../src/slack/command-context.js';
import { classifySlackError, describeSlackFailure } from '../src/slack/slack-errors.js';
import { milestoneStatusView, subscribedView, subscriptionAnnouncementView, subscriptionRefusedView, unsubscribedView } from '../src/slack/views/milestones.js';

export const MILESTONE_USAGE = [
  '*Usage*',
  '`/milestone <ref>` or `/milestone <ref> status`: cards and criteria done',
  '`/milestone <ref> subscribe [daily|weekly]`: post its status to this channel (weekly by default)',
  '`/milestone <ref> unsubscribe`: stop posting it here',
].join('\n');

export type MilestoneCommand =
  | { kind: 'status'; ref: string }
  | { kind: 'subscribe'; ref: string; cadence: (typeof CADENCES)[number] }
  | { kind: 'unsubscribe'; ref: string };

const REF = /^\S{1,64}$/;

/** `/milestone <ref> [status]`, `/milestone <ref> subscribe [daily|weekly]`, `/milestone <ref> unsubscribe`. */
export function parseMilestoneCommand(text: string): MilestoneCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [ref, verb, arg, ...rest] = words;
  if (ref === undefined || ref.toLowerCase() === 'help') throw new UsageError(MILESTONE_USAGE);
  if (!REF.test(ref)) throw new UsageError(MILESTONE_USAGE, `"${ref}" is not a milestone ref.`);
  const action = verb?.toLowerCase();
  if (action === undefined || action === 'status') {
    if (arg !== undefined) throw new UsageError(MILESTONE_USAGE);
    return { kind: 'status', ref };
  }
  if (action === 'subscribe') {
    if (rest.length > 0) throw new UsageError(MILESTONE_USAGE);
    const cadence = (arg ?? 'weekly').toLowerCase();
    if (cadence !== 'daily' && cadence !== 'weekly') throw new UsageError(MILESTONE_USAGE, 'Choose daily or weekly.');
    return { kind: 'subscribe', ref, cadence };
  }
  if (action === 'unsubscribe') {
    if (arg !== undefined) throw new UsageError(MILESTONE_USAGE);
    return { kind: 'unsubscribe', ref };
  }
  throw new UsageError(MILESTONE_USAGE, `Unknown action "${verb}".`);
}

export const milestoneCommand: CommandHandler = async (text, ctx) => {
  const cmd = parseMilestoneCommand(text);
  switch (cmd.kind) {
    case 'status': {
      const m = await ctx.call('getMilestoneStatus', { ref: cmd.ref });
      return milestoneStatusView(m);
    }
    case 'subscribe':
      return subscribe(cmd.ref, cmd.cadence, ctx);
    case 'unsubscribe':
      await ctx.call(unsubscribeMilestoneOp, { ref: cmd.ref, channel_id: ctx.channelId });
      return unsubscribedView(cmd.ref);
  }
};

/**
 * Subscribes the channel, then posts the confirmation in it as the bot: the one sure test that
 * the bot can post there. If Slack refuses the channel (the bot is not in it, it is archived
 * or gone), the subscription is removed again and the caller is told to invite @tack first.
 */
async function subscribe(ref: string, cadence: (typeof CADENCES)[number], ctx: CommandContext): Promise<SlackReply> {
  const result = await ctx.call(subscribeMilestoneOp, {
    ref,
    channel_id: ctx.channelId,
    cadence,
    tz: await ctx.timeZone(),
  });
  const sub = result.subscription;
  try {
    await ctx.postAsBot(subscriptionAnnouncementView(sub, ctx.member.name, ctx.reminderHour));
  } catch (err) {
    const failure = classifySlackError(err);
    if (failure.kind === 'conversation') {
      await ctx.call(unsubscribeMilestoneOp, { ref: sub.milestone_ref, channel_id: ctx.channelId });
      return subscriptionRefusedView(sub.milestone_ref, failure.error);
    }
    // The subscription stands; the summaries job copes with Slack's other failures itself.
    ctx.log.warn({ slack_error: describeSlackFailure(failure) }, 'subscription saved, but its confirmation could not be posted');
  }
  return subscribedView(sub, result, ctx.reminderHour);
}
