import type { types } from '@slack/bolt';
import type { OutputOf } from '../../operations/operation.js';
import type { OperationOutput } from '../../operations/index.js';
import type { subscribeMilestoneOp } from '../../operations/slack.js';
import type { SlackReply } from '../command-context.js';
import { context, ephemeral, escapeText, field, header, message, ratio, section } from './blocks.js';

/** Milestone status as `getMilestoneStatus` answers it. */
export type MilestoneView = OperationOutput<'getMilestoneStatus'>;
export type SubscriptionView = OutputOf<typeof subscribeMilestoneOp>['subscription'];

/** The status's four numbers (and kind, end date) as section fields. */
export function milestoneFields(m: MilestoneView): types.MrkdwnElement[] {
  const fields: types.MrkdwnElement[] = [
    field(`*Cards done*\n${ratio(m.cards_done, m.cards_total)}`),
    field(`*Criteria done*\n${ratio(m.criteria_done, m.criteria_total)}`),
  ];
  if (m.kind) fields.push(field(`*Kind*\n${escapeText(m.kind)}`));
  if (m.ends_on) fields.push(field(`*Ends*\n${m.ends_on}`));
  return fields;
}

export function milestoneStatusText(m: MilestoneView): string {
  return `${m.ref} ${m.name}: ${m.cards_done}/${m.cards_total} cards done, ${m.criteria_done ?? 0}/${m.criteria_total ?? 0} criteria done`;
}

/** Milestone status with its four numbers, the same ones `/v1/milestones/{ref}/status` returns. */
export function milestoneStatusView(m: MilestoneView): SlackReply {
  return ephemeral(milestoneStatusText(m), [header(`${m.ref} · ${m.name}`), { type: 'section', fields: milestoneFields(m) }]);
}

function schedule(sub: SubscriptionView, hour: number): string {
  return `${sub.cadence} at ${String(hour).padStart(2, '0')}:00 (${sub.tz})`;
}

/** The caller's answer to `/milestone <ref> subscribe`: new, changed, or resumed after a pause. */
export function subscribedView(sub: SubscriptionView, how: { created: boolean; resumed?: boolean }, hour: number): SlackReply {
  const ref = sub.milestone_ref;
  const when = schedule(sub, hour);
  const text = how.created
    ? `This channel now gets ${ref}'s status ${when}.`
    : how.resumed
      ? `Resumed: this channel gets ${ref}'s status again, ${when}.`
      : `Updated: this channel gets ${ref}'s status ${when}.`;
  return ephemeral(text, [section(`:bell: ${escapeText(text)}`)]);
}

/** What the bot posts in the channel when it is subscribed (and so proves it may post there). */
export function subscriptionAnnouncementView(sub: SubscriptionView, by: string, hour: number): SlackReply {
  const text = `${by} subscribed this channel to ${sub.milestone_ref}'s status, ${schedule(sub, hour)}.`;
  return message(text, [context(`:bell: ${escapeText(text)}`)]);
}

/** The answer when Slack would not let the bot post in the channel: nothing was subscribed. */
export function subscriptionRefusedView(ref: string, reason: string): SlackReply {
  const text =
    `I cannot post in this channel (${reason}), so it is not subscribed. ` +
    `Invite @tack first (\`/invite @tack\`), then run \`/milestone ${ref} subscribe\` again.`;
  return ephemeral(text, [section(`:warning: ${escapeText(text)}`)]);
}

const CHANNEL_REFUSALS: Record<string, string> = {
  not_in_channel: 'I am not a member of it',
  channel_not_found: 'I cannot find it (deleted, or private without me in it)',
  is_archived: 'it is archived',
};

/** The DM a subscriber gets once when their subscription is paused (the summaries job). */
export function subscriptionPausedView(ref: string, channelId: string, reason: string): SlackReply {
  const why = CHANNEL_REFUSALS[reason] ?? `Slack refused (${reason})`;
  const resume = `Invite @tack to the channel, then run \`/milestone ${ref} subscribe\` there to resume.`;
  // The channel id is Slack's own (checked at subscribe time), so it may go into a link.
  const block = `:pause_button: I paused ${escapeText(ref)}'s status summaries in <#${channelId}>: ${escapeText(why)}. ${escapeText(resume)}`;
  return message(`I paused ${ref}'s status summaries in channel ${channelId}: ${why}. ${resume}`, [section(block)]);
}

export function unsubscribedView(ref: string): SlackReply {
  const text = `This channel no longer gets ${ref}'s status.`;
  return ephemeral(text, [section(`:no_bell: ${escapeText(text)}`)]);
}
