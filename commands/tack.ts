import { UsageError, type CommandHandler } from '../src/slack/command-context.js';
import { isNotificationKind, NOTIFICATION_KINDS, type NotificationKind } from '../src/domain/notification-kinds.js';
import { notifySettingsView } from '../src/slack/views/notifications.js';
import { helpView, reminderHourView, signinLinkView } from '../src/slack/views/tack.js';

export const TACK_USAGE = [
  '*Usage*',
  '`/tack help`: every command with an example',
  '`/tack login`: a one-time sign-in link to the web app',
  '`/tack connect`: link this Slack account to your tack member (a one-time link you confirm in the web app)',
  '`/tack reminder-hour [0-23|default]`: the local hour of your due-todo reminders',
  '`/tack notify [assigned|mentioned|card_activity|agent_requests|all] [on|off]`: your notifications by DM',
].join('\n');

export type TackCommand =
  | { kind: 'help' }
  | { kind: 'login' }
  | { kind: 'connect' }
  | { kind: 'reminder-hour'; hour?: number | null }
  | { kind: 'notify'; set?: { kinds: readonly NotificationKind[]; on: boolean; name: string } };

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
  if (action === 'notify') return parseNotify(arg, rest);
  throw new UsageError(TACK_USAGE, action === 'login' || action === 'connect' || action === 'reminder-hour' ? undefined : `Unknown action "${verb}".`);
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
    case 'notify': {
      if (!cmd.set) return notifySettingsView((await ctx.call('getMe', {})).member.notifications);
      const { kinds, on, name } = cmd.set;
      const member = await ctx.call('updateMember', { id: ctx.member.id, notifications: Object.fromEntries(kinds.map((k) => [k, on])) });
      return notifySettingsView(member.notifications, { kind: name, on });
    }
  }
};
