import type { types } from '@slack/bolt';
import type { OperationOutput } from '../../operations/index.js';
import type { SlackReply } from '../command-context.js';
import { BUTTON_TEXT_MAX, context, ephemeral, escapeText, plain, section } from './blocks.js';

/** Every command, each with one example: the answer to `/tack help`. */
export const HELP_LINES: readonly (readonly [string, string])[] = [
  ['/todo', 'your open todos due this week, each with Done'],
  ['/todo add Write the release notes due:tomorrow !high', 'add a todo (no text: a form opens)'],
  ['/todo done todo_…', 'complete a todo'],
  ['/card ENG-42', 'a card, with a select that moves it'],
  ['/card ENG-42 move in_review', 'move a card'],
  ['/milestone M3', "a milestone's cards and criteria done"],
  ['/milestone M3 subscribe daily', "post M3's status to this channel every day (or weekly)"],
  ['/milestone M3 unsubscribe', 'stop posting it here'],
  ['/snippet deploy-checklist', 'show a snippet'],
  ['/tack login', 'a one-time sign-in link to the web app'],
  ['/tack connect', 'link this Slack account to your tack member: a one-time link you confirm in the web app, signed in'],
  ['/tack reminder-hour 8', 'get your due-todo reminders at 08:00 your time (`default` for the server’s hour)'],
  ['/tack notify card_activity off', 'your notifications by DM: list them (no kind), or turn a kind (or all) on or off'],
];

export function helpView(): SlackReply {
  const lines = HELP_LINES.map(([example, what]) => `\`${example}\`: ${what}`);
  return ephemeral(`tack commands: ${HELP_LINES.map(([e]) => e).join(', ')}`, [
    section(`*tack commands*\n${lines.join('\n')}`),
    context("Also: *Create a todo* on any message's ⋯ menu, and *My work* in tack's Home tab."),
  ]);
}

/** The answer to `/tack login`: only the caller sees it. */
export function signinLinkView(link: OperationOutput<'createSigninLink'>): SlackReply {
  const open: types.Button = { type: 'button', text: plain('Open tack', BUTTON_TEXT_MAX), url: link.url, action_id: 'signin_open', style: 'primary' };
  return ephemeral(`Your sign-in link to tack (one use, until ${link.expires_at}): ${link.url}`, [
    { type: 'section', text: { type: 'mrkdwn', text: ':key: Your sign-in link to the tack web app. It works once, for 15 minutes; do not share it.' }, accessory: open },
    context(`Expires ${link.expires_at}.`),
  ]);
}

export function reminderHourView(hour: number | null, defaultHour: number, changed: boolean): SlackReply {
  const at = (h: number) => `${String(h).padStart(2, '0')}:00`;
  const text =
    hour === null
      ? `${changed ? 'Done: your' : 'Your'} due-todo reminders come at the server's hour, ${at(defaultHour)} in your time zone.`
      : `${changed ? 'Done: your' : 'Your'} due-todo reminders come at ${at(hour)} in your time zone.`;
  return ephemeral(text, [section(`:alarm_clock: ${text}`)]);
}

/** The answer to `/tack connect`: only the caller sees it. */
export function connectLinkView(link: { url: string; expires_at: string }): SlackReply {
  const open: types.Button = { type: 'button', text: plain('Open tack', BUTTON_TEXT_MAX), url: link.url, action_id: 'slack_connect_open', style: 'primary' };
  return ephemeral(`Your link to connect this Slack account to tack (one use, until ${link.expires_at}): ${link.url}`, [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: ':link: Open this link in a browser where you are signed in to the tack web app, and confirm there: this Slack account then acts as your tack member. It works once, for 15 minutes; do not share it.',
      },
      accessory: open,
    },
    context(`Expires ${link.expires_at}. Not signed in? Get a sign-in link from \`tack signin-link\` or an admin first.`),
  ]);
}

/** `/tack connect` from a Slack user who is linked already. */
export function alreadyLinkedView(member: { name: string; role: string }): SlackReply {
  const text = `This Slack account is already linked to the tack member ${member.name} (${member.role}). To link it to another member, that link is removed first (an owner or admin sets slack_user_id to null), then run /tack connect again.`;
  return ephemeral(text, [section(`:link: ${escapeText(text)}`)]);
}
