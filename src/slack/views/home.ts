import type { types } from '@slack/bolt';
import { howToLinkMessage } from '../../domain/slack-links.js';
import { statusLabel, type CardView } from './cards.js';
import { bold, context, escapeText, header, inlineCode, MAX_VIEW_BLOCKS, moreLine, ratio, section } from './blocks.js';
import type { MilestoneView } from './milestones.js';
import { todoBlocks, type TodoView } from './todos.js';
import { homeNotificationBlocks } from './notifications.js';
import type { NotificationList } from '../../domain/notification-inbox.js';

/** What the Home tab lists of each kind at most: with headings and dividers, under 100 blocks. */
export const HOME_MAX_TODOS = 25;
export const HOME_MAX_CARDS = 25;
export const HOME_MAX_MILESTONES = 20;

export interface HomeData {
  todos: TodoView[];
  /** More open todos are due this week than `todos` holds. */
  todosTruncated: boolean;
  cards: CardView[];
  cardsTruncated: boolean;
  milestones: MilestoneView[];
  /** The unread count and the latest notifications (absent: none to show). */
  notifications?: NotificationList;
}

function list<T>(items: T[], truncated: boolean, max: number, render: (item: T) => types.KnownBlock[], empty: string): types.KnownBlock[] {
  if (items.length === 0 && !truncated) return [context(empty)];
  const shown = items.slice(0, max);
  const blocks = shown.flatMap(render);
  const left = items.length - shown.length;
  if (left > 0 || truncated) blocks.push(context(moreLine(left, truncated)));
  return blocks;
}

function cardLine(c: CardView): types.KnownBlock {
  const bits = [statusLabel(c.workflow_status), `criteria ${ratio(c.criteria_done, c.criteria_total)}`, c.due_on ? `due ${c.due_on}` : ''].filter(Boolean);
  return section(`${bold(c.ref)} ${escapeText(c.title)}\n${bits.join(' · ')} · ${inlineCode(`/card ${c.ref}`)}`, `card:${c.id}`);
}

function milestoneLine(m: MilestoneView): types.KnownBlock {
  const ends = m.ends_on ? ` · ends ${m.ends_on}` : '';
  return section(`${bold(m.ref)} ${escapeText(m.name)}\ncards done ${ratio(m.cards_done, m.cards_total)} · criteria done ${ratio(m.criteria_done, m.criteria_total)}${ends}`, `milestone:${m.id}`);
}

/**
 * "My work", the Home tab of a linked member: open todos due within 7 days (each with
 * Done), cards assigned to them in progress, and the milestones of the channels they
 * subscribed. Published again on every app_home_opened and after a Done or a snooze.
 */
export function homeView(data: HomeData): types.HomeView {
  const blocks: types.KnownBlock[] = [
    header('My work'),
    ...(data.notifications ? [...homeNotificationBlocks(data.notifications.unread, data.notifications.notifications), { type: 'divider' } as types.KnownBlock] : []),
    section('*Todos due this week*'),
    ...list(data.todos, data.todosTruncated, HOME_MAX_TODOS, (t) => todoBlocks(t), 'Nothing open is due this week. :tada:'),
    { type: 'divider' },
    section('*Your cards in progress*'),
    ...list(data.cards, data.cardsTruncated, HOME_MAX_CARDS, (c) => [cardLine(c)], 'No card of yours is in progress.'),
    { type: 'divider' },
    section('*Milestones you follow*'),
    ...list(data.milestones, false, HOME_MAX_MILESTONES, (m) => [milestoneLine(m)], 'Subscribe a channel with `/milestone &lt;ref&gt; subscribe` to follow a milestone here.'),
    { type: 'divider' },
    context('`/tack help` lists every command. *Create a todo* is on every message’s ⋯ menu.'),
  ];
  return { type: 'home', blocks: blocks.slice(0, MAX_VIEW_BLOCKS) };
}

/** The Home tab of a Slack user with no tack member: how to link. */
export function unlinkedHomeView(slackUserId: string): types.HomeView {
  return { type: 'home', blocks: [header('tack'), section(escapeText(howToLinkMessage(slackUserId)))] };
}
