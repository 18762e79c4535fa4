import type { types } from '@slack/bolt';
import type { SlackReply } from '../command-context.js';
import { clip, context, ephemeral, escapeText, field, link, message, section } from './blocks.js';
import { mentionsAsNames } from '../../domain/mentions.js';
import { statusLabel, type CardView } from './cards.js';

/**
 * What a board subscription posts: one parent message per card (its current state, kept
 * current with chat.update), and a line per later event in the parent's thread. Every text a
 * person wrote (titles, names, comments) is escaped and cut to Block Kit's limits.
 */

/** The card as the parent shows it; `assignees` already as Slack mentions or names. */
export interface ThreadCard {
  id: string;
  ref: string;
  title: string;
  workflow_status: string;
  assignees: string[];
  url: string | undefined;
  deleted?: boolean;
}

/** An assignee as the parent shows them: a mention of their Slack user, else their name. */
export function assigneeLabel(m: { name: string; slack_user_id: string | null }): string {
  return m.slack_user_id && /^[UW][A-Z0-9]{2,30}$/.test(m.slack_user_id) ? `<@${m.slack_user_id}>` : escapeText(m.name);
}

export function threadCard(c: Pick<CardView, 'id' | 'ref' | 'title' | 'workflow_status'>, assignees: string[], url: string | undefined): ThreadCard {
  return { id: c.id, ref: c.ref, title: c.title, workflow_status: c.workflow_status, assignees, url };
}

/** The thread's parent: the card's current state. */
export function cardThreadParentView(c: ThreadCard, boardSlug: string): SlackReply {
  const name = `${c.ref} ${c.title}`;
  const title = c.url && !c.deleted ? link(c.url, name) : escapeText(clip(name, 300));
  const blocks: types.KnownBlock[] = [
    section(`:card_index: ${c.deleted ? `~${title}~ (deleted)` : `*${title}*`}`, `thread:${c.id}`),
    {
      type: 'section',
      fields: [field(`*Status*\n${statusLabel(c.workflow_status)}`), field(`*Assignees*\n${c.assignees.length > 0 ? clip(c.assignees.join(', '), 1900) : 'nobody'}`)],
    },
    context(`Board ${escapeText(boardSlug)} · what happens to this card follows in the thread`),
  ];
  return message(`${c.ref} ${c.title}: ${statusLabel(c.workflow_status)}${c.deleted ? ' (deleted)' : ''}`, blocks);
}

/** One event, as its line in the card's thread. */
export interface ThreadEvent {
  type: string;
  actor_name: string;
  changes: unknown;
  data: unknown;
}

function text(value: unknown, max = 200): string {
  return typeof value === 'string' ? clip(escapeText(value), max) : '';
}

function changed(changes: unknown, field: string): [unknown, unknown] | undefined {
  if (!changes || typeof changes !== 'object') return undefined;
  const pair = (changes as Record<string, unknown>)[field];
  return Array.isArray(pair) && pair.length === 2 ? [pair[0], pair[1]] : undefined;
}

function dataField(data: unknown, field: string): unknown {
  return data && typeof data === 'object' ? (data as Record<string, unknown>)[field] : undefined;
}

/** What happened, in words after the actor's name; `names`: members a comment mentions, shown as `@Name`. */
export function eventSentence(e: ThreadEvent, names: ReadonlyMap<string, string> = new Map()): string {
  switch (e.type) {
    case 'card.created':
      return 'created the card';
    case 'card.moved': {
      const status = changed(e.changes, 'workflow_status');
      return status ? `moved it from ${statusLabel(String(status[0]))} to ${statusLabel(String(status[1]))}` : 'moved it';
    }
    case 'card.updated': {
      const fields = e.changes && typeof e.changes === 'object' ? Object.keys(e.changes).filter((k) => k !== 'updated_at') : [];
      const title = changed(e.changes, 'title');
      if (title) return `renamed it to “${text(title[1])}”`;
      return fields.length > 0 ? `changed ${fields.map((f) => escapeText(f.replace(/_/g, ' '))).join(', ')}` : 'updated it';
    }
    case 'card.deleted':
      return 'deleted the card';
    case 'card.move_refused':
      return `was refused a move (${text(dataField(e.changes, 'code') ?? 'gate')})`;
    case 'criterion.created':
      return `added the criterion “${text(dataField(e.data, 'title'))}”`;
    case 'criterion.updated':
      return dataField(e.data, 'done') === true ? `checked “${text(dataField(e.data, 'title'))}”` : `updated the criterion “${text(dataField(e.data, 'title'))}”`;
    case 'criterion.deleted':
      return 'removed a criterion';
    case 'comment.created':
      return `commented: ${text(mentionsAsNames(String(dataField(e.data, 'body') ?? ''), names), 500)}`;
    case 'comment.updated':
      return 'edited a comment';
    case 'comment.deleted':
      return 'deleted a comment';
    default:
      return escapeText(e.type);
  }
}

/** A thread reply for one event. */
export function cardThreadEventView(e: ThreadEvent, names?: ReadonlyMap<string, string>): SlackReply {
  const who = clip(escapeText(e.actor_name || 'someone'), 100);
  const sentence = eventSentence(e, names);
  return message(`${e.actor_name || 'someone'} ${sentence}`, [section(`*${who}* ${sentence}`)]);
}

const CHANNEL_REFUSALS: Record<string, string> = {
  not_in_channel: 'I am not a member of it',
  channel_not_found: 'I cannot find it (deleted, or private without me in it)',
  is_archived: 'it is archived',
};

/** The DM a subscriber gets once when their board subscription is paused. */
export function boardSubscriptionPausedView(boardSlug: string, channelId: string, reason: string): SlackReply {
  const why = CHANNEL_REFUSALS[reason] ?? `Slack refused (${reason})`;
  const resume = `Invite @tack to the channel, then run \`/tack subscribe ${boardSlug}\` there to resume.`;
  const block = `:pause_button: I paused the card updates of board ${escapeText(boardSlug)} in <#${channelId}>: ${escapeText(why)}. ${escapeText(resume)}`;
  return message(`I paused the card updates of board ${boardSlug} in channel ${channelId}: ${why}. ${resume}`, [section(block)]);
}

export interface BoardSubscriptionView {
  board_slug: string;
  board_name: string;
  channel_id: string;
  paused_at: string | null;
  paused_reason: string | null;
}

export function boardSubscribedView(sub: BoardSubscriptionView, how: { created: boolean; resumed: boolean }): SlackReply {
  const what = how.resumed ? 'resumed' : how.created ? 'subscribed' : 'already subscribed';
  const line = `This channel is ${what === 'already subscribed' ? 'already subscribed' : what === 'resumed' ? 'subscribed again' : 'now subscribed'} to board ${sub.board_slug}: one message per card, what happens to it in its thread.`;
  return ephemeral(line, [section(`:bell: ${escapeText(line)}`)]);
}

export function boardSubscriptionAnnouncementView(sub: BoardSubscriptionView, by: string): SlackReply {
  const line = `${by} subscribed this channel to board ${sub.board_name} (${sub.board_slug}): each card gets a message here, and its changes in that message's thread.`;
  return message(line, [section(`:bell: ${escapeText(line)}`)]);
}

export function boardSubscriptionRefusedView(slug: string, reason: string): SlackReply {
  const why = CHANNEL_REFUSALS[reason] ?? `Slack refused (${reason})`;
  const line = `I cannot post in this channel (${why}), so it was not subscribed to board ${slug}. Invite @tack to the channel and try again.`;
  return ephemeral(line, [section(`:warning: ${escapeText(line)}`)]);
}

export function boardUnsubscribedView(slug: string): SlackReply {
  const line = `This channel no longer gets the card updates of board ${slug}.`;
  return ephemeral(line, [section(`:no_bell: ${escapeText(line)}`)]);
}

export function channelSubscriptionsView(subs: readonly BoardSubscriptionView[]): SlackReply {
  if (subs.length === 0) return ephemeral('This channel is subscribed to no board. `/tack subscribe <board slug>` subscribes it.');
  const lines = subs.map((s) => `• ${escapeText(s.board_slug)} (${escapeText(s.board_name)})${s.paused_at ? ` — paused: ${escapeText(s.paused_reason ?? 'Slack refused the channel')}` : ''}`);
  return ephemeral(`This channel gets the card updates of ${subs.length} board${subs.length === 1 ? '' : 's'}.`, [
    section(clip(`*Boards this channel follows*\n${lines.join('\n')}`, 2900)),
  ]);
}
