import { CADENCES } from '../src/domain/vocabulary.js';
import { subscribeMilestoneOp, unsubscribeMilestoneOp } from '../src/operations/slack.js';
import { UsageError, type CommandHandler } from '../src/slack/command-context.js';
import { milestoneStatusView, subscribedView, unsubscribedView, type MilestoneView, type SubscriptionView } from '../src/slack/views.js';

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
      const m = await ctx.call<MilestoneView>('getMilestoneStatus', { ref: cmd.ref });
      return milestoneStatusView(m);
    }
    case 'subscribe': {
      const result = await ctx.call<{ subscription: SubscriptionView; created: boolean }>(subscribeMilestoneOp, {
        ref: cmd.ref,
        channel_id: ctx.channelId,
        cadence: cmd.cadence,
        tz: await ctx.timeZone(),
      });
      return subscribedView(result.subscription, result.created, ctx.reminderHour);
    }
    case 'unsubscribe':
      await ctx.call(unsubscribeMilestoneOp, { ref: cmd.ref, channel_id: ctx.channelId });
      return unsubscribedView(cmd.ref);
  }
};
