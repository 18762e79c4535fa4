import { UsageError, type CommandContext, type CommandHandler, type SlackReply } from '../src/slack/command-context.js';
import { channelSubscriptionsOp, subscribeBoardOp, unsubscribeBoardOp } from '../src/operations/slack.js';
import { classifySlackError, describeSlackFailure } from '../src/slack/slack-errors.js';
import {
  boardSubscribedView,
  boardSubscriptionAnnouncementView,
  boardSubscriptionRefusedView,
  boardUnsubscribedView,
  channelSubscriptionsView,
} from '../src/slack/views/card-threads.js';
import { isNotificationKind, NOTIFICATION_KINDS, type NotificationKind } from '../src/domain/notification-kinds.js';
import { notifySettingsView } from '../src/slack/views/notifications.js';
import { helpView, reminderHourView, signinLinkView } from '../src/slack/views/tack.js';

export const TACK_USAGE = [
  '*Usage*',
  '`/tack help`: every command with an example',
  '`/tack login`: a one-time sign-in link to the web app',
  '`/tack connect`: link this Slack account to your tack member (a one-time link you confirm in the web app)',
  '`/tack reminder-hour [0-23|default]`: the local hour of your due-todo reminders',
  "`/tack subscribe <board slug>`: post the board's cards here, each card's changes in its thread",
  '`/tack unsubscribe <board slug>`: stop posting them here',
  '`/tack subscriptions`: the boards this channel follows',
  '`/tack notify [assigned|mentioned|card_activity|agent_requests|all] [on|off]`: your notifications by DM',
].join('\n');

export type TackCommand =
  | { kind: 'help' }
  | { kind: 'login' }
  | { kind: 'connect' }
  | { kind: 'reminder-hour'; hour?: number | null }
  | { kind: 'subscribe' | 'unsubscribe'; board: string }
  | { kind: 'subscriptions' }
  | { kind: 'notify'; set?: { kinds: readonly NotificationKind[]; on: boolean; name: string } };

const BOARD_SLUG = /^\S{1,64}$/;

/** `/tack notify [kind|all] on|off`; plain `/tack notify` lists the settings. */
function parseNotify(arg: string | undefined, rest: string[]): TackCommand {
  if (arg === undefined) return { kind: 'notify' };
  const [kindText = '', onOff, ...extra] = onOffLast(arg, rest);
  const name = kindText.toLowerCase();
  const state = onOff?.toLowerCase();
  if (extra.length > 0 || (state !== 'on' && state !== 'off')) throw new UsageError(TACK_USAGE, 'Say `/tack notify <kind> on` or `off`.');
  if (name === 'all') return { kind: 'notify', set: { kinds: NOTIFICATION_KINDS, on: state === 'on', name } };
  if (!isNotificationKind(name)) throw new UsageError(TACK_USAGE, `"${kindText}" is not a kind of notification: ${NOTIFICATION_KINDS.join(', ')} or all.`);
  return { kind: 'notify', set: { kinds: [name], on: state === 'on', name } };
}

/** `/tack notify off` means every kind. */
function onOffLast(arg: string, rest: string[]): string[] {
  return rest.length === 0 && /^(on|off)$/i.test(arg) ? ['all', arg] : [arg, ...rest];
}

/** `/tack [help]`, `/tack login`, `/tack connect`, `/tack reminder-hour [hour|default]`. */
export function parseTackCommand(text: string): TackCommand {
  const [verb, arg, ...rest] = text.trim().split(/\s+/).filter(Boolean);
  const action = verb?.toLowerCase();
  if (action === undefined || action === 'help') return { kind: 'help' };
  if (action === 'login' && arg === undefined) return { kind: 'login' };
  if (action === 'connect' && arg === undefined) return { kind: 'connect' };
  if (action === 'reminder-hour' && rest.length === 0) {
    if (arg === undefined) return { kind: 'reminder-hour' };
    if (arg.toLowerCase() === 'default') return { kind: 'reminder-hour', hour: null };
    // The number goes to updateMember as typed, whose schema says what a valid hour is.
    if (/^\d{1,2}$/.test(arg)) return { kind: 'reminder-hour', hour: Number(arg) };
    throw new UsageError(TACK_USAGE, `"${arg}" is not an hour: give 0 to 23, or default.`);
  }
  if ((action === 'subscribe' || action === 'unsubscribe') && rest.length === 0) {
    if (arg === undefined) throw new UsageError(TACK_USAGE, `Which board? \`/tack ${action} <board slug>\`.`);
    if (!BOARD_SLUG.test(arg)) throw new UsageError(TACK_USAGE, `"${arg}" is not a board slug.`);
    return { kind: action, board: arg };
  }
  if (action === 'subscriptions' && arg === undefined) return { kind: 'subscriptions' };
  if (action === 'notify') return parseNotify(arg, rest);
  throw new UsageError(TACK_USAGE, ['login', 'connect', 'reminder-hour', 'subscribe', 'unsubscribe', 'subscriptions'].includes(action) ? undefined : `Unknown action "${verb}".`);
}

/** `/tack connect`: answered before the Slack user is looked up, since it is how one links (see runCommand). */
export function isTackConnect(text: string): boolean {
  try {
    return parseTackCommand(text).kind === 'connect';
  } catch {
    return false;
  }
}

export const tackCommand: CommandHandler = async (text, ctx) => {
  const cmd = parseTackCommand(text);
  switch (cmd.kind) {
    case 'help':
      return helpView();
    case 'login':
      return signinLinkView(await ctx.call('createSigninLink', { id: ctx.member.id }));
    case 'connect':
      // Answered before the member is looked up (runCommand), linked or not.
      return null;
    case 'reminder-hour': {
      if (cmd.hour === undefined) {
        const me = await ctx.call('getMe', {});
        return reminderHourView(me.member.reminder_hour, ctx.reminderHour, false);
      }
      const member = await ctx.call('updateMember', { id: ctx.member.id, reminder_hour: cmd.hour });
      return reminderHourView(member.reminder_hour, ctx.reminderHour, true);
    }
    case 'subscribe':
      return subscribeBoard(cmd.board, ctx);
    case 'unsubscribe':
      await ctx.call(unsubscribeBoardOp, { board: cmd.board, channel_id: ctx.channelId });
      return boardUnsubscribedView(cmd.board);
    case 'subscriptions':
      return channelSubscriptionsView((await ctx.call(channelSubscriptionsOp, { channel_id: ctx.channelId })).subscriptions);
    case 'notify': {
      if (!cmd.set) return notifySettingsView((await ctx.call('getMe', {})).member.notifications);
      const { kinds, on, name } = cmd.set;
      const member = await ctx.call('updateMember', { id: ctx.member.id, notifications: Object.fromEntries(kinds.map((k) => [k, on])) });
      return notifySettingsView(member.notifications, { kind: name, on });
    }
  }
};

/**
 * Subscribes the channel, then posts the confirmation in it as the bot: the sure test that
 * the bot can post there (contract §6: a channel the bot cannot post to is refused at
 * subscribe time). Refused, the subscription is removed again, unless it stood before.
 */
async function subscribeBoard(board: string, ctx: CommandContext): Promise<SlackReply> {
  const result = await ctx.call(subscribeBoardOp, { board, channel_id: ctx.channelId });
  const sub = result.subscription;
  try {
    await ctx.postAsBot(boardSubscriptionAnnouncementView(sub, ctx.member.name));
  } catch (err) {
    const failure = classifySlackError(err);
    if (failure.kind === 'conversation') {
      await ctx.call(unsubscribeBoardOp, { board: sub.board_id, channel_id: ctx.channelId });
      return boardSubscriptionRefusedView(sub.board_slug, failure.error);
    }
    ctx.log.warn({ slack_error: describeSlackFailure(failure) }, 'board subscription saved, but its confirmation could not be posted');
  }
  return boardSubscribedView(sub, result);
}
