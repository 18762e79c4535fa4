import type { types } from '@slack/bolt';
import type { NotificationItem } from '../../domain/notification-batches.js';
import type { NotificationKind, NotificationSettings } from '../../domain/notification-kinds.js';
import type { SlackReply } from '../command-context.js';
import { appendWithinBudget, bold, button, clip, context, ephemeral, escapeText, MAX_BLOCKS, message, section } from './blocks.js';

/** The Move to done button of an agent's refused request: its value is `<card id> <notification id>`. */
export const MOVE_TO_DONE_ACTION = 'notification_move_done';
/** Block ids of a notification's line: `ntf:<id>`. */
export const NOTIFICATION_BLOCK_PREFIX = 'ntf:';
/** A DM lists at most this many; the rest are counted (all of them are in App Home). */
export const DM_MAX_ITEMS = 20;
/** App Home lists the latest this many. */
export const HOME_NOTIFICATIONS = 10;

// A title or an excerpt this long says what it needs to; Slack's limits are far above.
const TITLE_MAX = 200;
const DETAIL_MAX = 400;

const EMOJI: Record<NotificationKind, string> = {
  assigned: ':bust_in_silhouette:',
  mentioned: ':speech_balloon:',
  card_activity: ':arrows_counterclockwise:',
  agent_requests: ':robot_face:',
};

function cardWords(n: Pick<NotificationItem, 'card_ref' | 'card_title'>): string {
  return `${n.card_ref ? `${bold(n.card_ref)} ` : ''}${escapeText(clip(n.card_title, TITLE_MAX))}`;
}

/** One notification as a line of mrkdwn (everything people wrote escaped). */
export function notificationLine(n: NotificationItem): string {
  return `${EMOJI[n.kind]} ${cardWords(n)}\n${bold(clip(n.actor_name, 100))} ${escapeText(clip(n.detail, DETAIL_MAX))}`;
}

/** The plain words of a notification (a DM's fallback text; `message` escapes it). */
function plainLine(n: NotificationItem): string {
  return `${n.actor_name.slice(0, 100)} ${n.detail.slice(0, 100)} on ${n.card_ref ?? 'a card'}`;
}

/** A notification's blocks: its line, with Move to done beside an agent's request. */
function notificationBlocks(n: NotificationItem): types.KnownBlock[] {
  const line = section(notificationLine(n), `${NOTIFICATION_BLOCK_PREFIX}${n.id}`);
  if (n.kind === 'agent_requests' && n.card_id) return [{ ...line, accessory: button('Move to done', MOVE_TO_DONE_ACTION, `${n.card_id} ${n.id}`, 'primary') }];
  return [line];
}

/** The DM of one batch: every notification of the minute, oldest first. */
export function notificationDmView(items: readonly NotificationItem[]): SlackReply {
  const text = items.length === 1 ? plainLine(items[0]!) : `${items.length} tack notifications: ${items.slice(0, 3).map(plainLine).join('; ')}`;
  const blocks: types.KnownBlock[] = [];
  const fitted = appendWithinBudget(blocks, items.slice(0, DM_MAX_ITEMS), notificationBlocks);
  const left = items.length - fitted;
  if (left > 0) blocks.push(context(`…and ${left} more: see tack's Home tab.`));
  blocks.push(context('Turn kinds of notifications off with `/tack notify &lt;kind&gt; off`.'));
  return message(text, blocks.slice(0, MAX_BLOCKS));
}

/** A request's line after its button was used: the outcome instead of the button. */
export function requestAnsweredBlocks(block: types.KnownBlock, outcome: string): types.KnownBlock[] {
  const { accessory: _gone, ...rest } = block as types.SectionBlock;
  return [rest as types.SectionBlock, context(escapeText(outcome))];
}

/** App Home's part: the unread count and the latest notifications. */
export function homeNotificationBlocks(unread: number, latest: readonly NotificationItem[]): types.KnownBlock[] {
  const blocks: types.KnownBlock[] = [section(`*Notifications* · ${unread === 0 ? 'nothing unread' : `${unread} unread`}`, 'notifications')];
  if (latest.length === 0) return [...blocks, context('Nothing yet: cards assigned to you, mentions and agents asking you show up here and in a DM.')];
  for (const n of latest.slice(0, HOME_NOTIFICATIONS)) {
    const line = notificationBlocks(n)[0] as types.SectionBlock;
    const mark = n.read_at === null ? ':large_blue_circle: ' : '';
    blocks.push({ ...line, block_id: `home-${line.block_id ?? n.id}`, text: { type: 'mrkdwn', text: clip(`${mark}${notificationLine(n)}`, 3000) } });
  }
  return blocks;
}

/** `/tack notify`: each kind on or off. */
export function notifySettingsView(settings: NotificationSettings, changed?: { kind: string; on: boolean }): SlackReply {
  const names: Record<NotificationKind, string> = {
    assigned: 'a card is assigned to you',
    mentioned: "a comment or a card's description mentions you",
    card_activity: 'your cards are moved or commented on by others',
    agent_requests: "an agent's move to done is refused on your card (with Move to done)",
  };
  const lines = (Object.keys(names) as NotificationKind[]).map((k) => `${settings[k] ? ':white_check_mark:' : ':no_bell:'} \`${k}\` ${settings[k] ? 'on' : 'off'}: ${names[k]}`);
  const head = changed ? `Done: ${changed.kind} notifications are ${changed.on ? 'on' : 'off'}.` : 'Your notifications by DM:';
  return ephemeral(`${head} ${(Object.keys(names) as NotificationKind[]).map((k) => `${k} ${settings[k] ? 'on' : 'off'}`).join(', ')}`, [
    section(`${escapeText(head)}\n${lines.join('\n')}`),
    context('`/tack notify &lt;kind&gt; on|off` changes one; `/tack notify all off` all of them.'),
  ]);
}
