import type { types } from '@slack/bolt';
import type { OperationOutput } from '../../operations/index.js';
import type { SlackReply } from '../command-context.js';
import { appendWithinBudget, bold, button, context, ephemeral, escapeText, inlineCode, link, message, moreLine, mrkdwn, section, struck } from './blocks.js';

/** A todo as the views show it: fields of the todo operations' output schema. */
export type TodoView = Pick<OperationOutput<'createTodo'>, 'id' | 'title' | 'priority' | 'due_on' | 'done'> &
  Partial<Pick<OperationOutput<'createTodo'>, 'source_url'>>;

/** The action id of every todo's Done button; its value is the todo id. */
export const TODO_DONE_ACTION = 'todo_done';
/** Snooze buttons of a reminder: the todo moves to tomorrow or to a week from today (the owner's day). */
export const SNOOZE_ACTIONS = { tomorrow: 'todo_snooze_tomorrow', week: 'todo_snooze_week' } as const;
export type SnoozeUntil = keyof typeof SNOOZE_ACTIONS;

/** Todos one list shows: with a note, a heading and the "and N more" line, well under 50 blocks. */
export const MAX_TODOS = 40;
/** Todos one reminder lists: two blocks each (the todo, its snooze buttons), under 50 in all. */
export const MAX_DIGEST_TODOS = 20;

const PRIORITY_MARKS: Record<string, string> = { urgent: ':red_circle:', high: ':large_orange_circle:', medium: ':white_circle:', low: ':large_blue_circle:' };

function todoLine(t: TodoView, extra = ''): string {
  const due = t.due_on ? ` · due ${t.due_on}` : '';
  const source = t.source_url ? ` · ${link(t.source_url, 'from Slack')}` : '';
  return `${PRIORITY_MARKS[t.priority] ?? ''} ${bold(t.title)}\n${t.priority}${due}${source} · ${inlineCode(t.id)}${extra}`.trim();
}

/** The block id of a todo's first block; its other blocks' ids start with it and a colon. */
export function todoBlockId(todoId: string): string {
  return `todo:${todoId}`;
}

/** Whether a block belongs to the todo (its block id is the todo's, or starts with it). */
export function isTodoBlock(blockId: string | undefined, todoId: string): boolean {
  const id = todoBlockId(todoId);
  return blockId === id || (blockId?.startsWith(`${id}:`) ?? false);
}

/**
 * One todo with its Done button; block ids carry the todo id so a click can find its block.
 * Its done state has a block id of its own: a message replaced after a click gets a new
 * block where the old one changed, as Slack asks.
 */
export function todoBlocks(t: TodoView, extra = ''): types.KnownBlock[] {
  if (t.done) return [section(`:white_check_mark: ${struck(t.title)} done`, `${todoBlockId(t.id)}:done`)];
  return [{ type: 'section', block_id: todoBlockId(t.id), text: mrkdwn(todoLine(t, extra)), accessory: button('Done', TODO_DONE_ACTION, t.id, 'primary') }];
}

/** What a snooze leaves in place of the todo: its new date. */
export function todoSnoozedBlocks(t: TodoView): types.KnownBlock[] {
  return [section(`:zzz: ${bold(t.title)} snoozed until ${t.due_on ?? 'later'}`, `${todoBlockId(t.id)}:snoozed:${t.due_on ?? ''}`)];
}

/** A todo just snoozed: what a Snooze click leaves in place of the todo. */
export function todoSnoozedView(t: TodoView): SlackReply {
  return message(`Snoozed until ${t.due_on ?? 'later'}: ${t.title}`, todoSnoozedBlocks(t));
}

export interface TodoListOptions {
  heading?: string;
  /** A line above the list (what a click just did). */
  note?: string;
  /** More open todos exist than `todos` holds (their page had a next cursor). */
  truncated?: boolean;
}

/** The caller's open todos due this week, each with a Done button; at most MAX_TODOS of them. */
export function todoListView(todos: TodoView[], options: TodoListOptions = {}): SlackReply {
  const { heading = 'Your open todos due this week', note, truncated = false } = options;
  const blocks: types.KnownBlock[] = [];
  if (note) blocks.push(context(escapeText(note)));
  if (todos.length === 0 && !truncated) {
    blocks.push(section('Nothing open is due this week. :tada:'));
    return ephemeral(note ? `${note} Nothing open is due this week.` : 'Nothing open is due this week.', blocks);
  }
  blocks.push(section(bold(heading)));
  const shown = todos.slice(0, appendWithinBudget(blocks, todos.slice(0, MAX_TODOS), (t) => todoBlocks(t)));
  const left = todos.length - shown.length;
  const more = left > 0 || truncated ? moreLine(left, truncated) : '';
  if (more) blocks.push(context(more));
  const text = `${heading}: ${shown.map((t) => t.title).join(', ')}${more ? ` ${more}` : ''}`;
  return ephemeral(note ? `${note} ${text}` : text, blocks);
}

/** A todo just created. */
export function todoCreatedView(t: TodoView): SlackReply {
  const due = t.due_on ? `, due ${t.due_on}` : '';
  return ephemeral(`Added todo "${t.title}" (${t.priority}${due}).`, [section(':memo: Added'), ...todoBlocks(t)]);
}

/** A todo in its done state: what a Done click leaves in place of the todo. */
export function todoDoneView(t: TodoView): SlackReply {
  return ephemeral(`Done: ${t.title}`, todoBlocks({ ...t, done: true }));
}

/**
 * The block id of a reminder's heading (a click on a reminder replaces it with chat.update),
 * with the count it says after a colon: a reminder updated to say another count gets a new
 * block id, as Slack asks of a changed block.
 */
export const REMINDER_BLOCK = 'tack_reminder';

export function isReminderBlock(blockId: string | undefined): boolean {
  return blockId === REMINDER_BLOCK || (blockId?.startsWith(`${REMINDER_BLOCK}:`) ?? false);
}

/** A todo in a reminder: with the card it mirrors a criterion of, if any. */
export interface DigestTodo extends TodoView {
  card?: { ref: string; title: string } | null;
  /** Snoozed since the reminder went out (its due date moved on). */
  snoozed?: boolean;
}

/**
 * The day's reminder, one direct message per member and local day: the todos due that day
 * (or overdue since a day the reminder could not go out), at most MAX_DIGEST_TODOS of them,
 * each with Done and the two Snooze buttons, then how many more there are.
 */
export function todoDigestView(todos: DigestTodo[], today: string): SlackReply {
  const overdue = (t: DigestTodo) => !!t.due_on && t.due_on < today;
  const blocks: types.KnownBlock[] = [
    section(todos.length === 1 ? ':alarm_clock: *Due today*' : `:alarm_clock: *Due today: ${todos.length} todos*`, `${REMINDER_BLOCK}:${todos.length}`),
  ];
  const render = (t: DigestTodo): types.KnownBlock[] => {
    if (t.snoozed) return todoSnoozedBlocks(t);
    const card = t.card ? `\nCard ${bold(t.card.ref)} ${escapeText(t.card.title)} · ${inlineCode(`/card ${t.card.ref}`)}` : '';
    const late = overdue(t) ? `\n:warning: overdue since ${t.due_on}` : '';
    const own = todoBlocks(t, `${late}${card}`);
    if (t.done) return own;
    const snooze: types.ActionsBlock = {
      type: 'actions',
      block_id: `${todoBlockId(t.id)}:snooze`,
      elements: [button('Snooze: tomorrow', SNOOZE_ACTIONS.tomorrow, t.id), button('Snooze: next week', SNOOZE_ACTIONS.week, t.id)],
    };
    return [...own, snooze];
  };
  // As many as fit in one message Slack takes (MAX_DIGEST_TODOS, and the text budget), then how many more.
  const shown = todos.slice(0, appendWithinBudget(blocks, todos.slice(0, MAX_DIGEST_TODOS), render));
  const left = todos.length - shown.length;
  if (left > 0) blocks.push(context(`${moreLine(left, false)} See them all with \`/todo\` or in tack's Home tab.`));
  const text = todos.length === 1 ? reminderText(shown[0]!, today) : `Reminder: ${todos.length} todos due today: ${shown.map((t) => `"${t.title}"`).join(', ')}${left > 0 ? ` ${moreLine(left, false)}` : ''}`;
  return message(text, blocks);
}

/** The notification text of a reminder of one todo. */
function reminderText(t: DigestTodo, today: string): string {
  const when = !t.due_on ? '' : t.due_on < today ? ` (overdue since ${t.due_on})` : ` today (${t.due_on})`;
  const onCard = t.card ? ` on card ${t.card.ref}` : '';
  return `Reminder: "${t.title}" (${t.priority})${onCard} is due${when}.`;
}
