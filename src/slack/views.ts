import type { types } from '@slack/bolt';
import type { SlackReply } from './command-context.js';
import type { Priority, WorkflowStatus } from '../domain/vocabulary.js';

/**
 * Block Kit for every Slack answer. Shapes follow the /v1 resources (api-v1.md part 2);
 * only the fields a view shows are required here.
 */

export interface MilestoneView {
  ref: string;
  name: string;
  kind?: string;
  cards_done: number;
  cards_total: number;
  criteria_done?: number;
  criteria_total?: number;
  ends_on?: string | null;
}

export interface TodoView {
  id: string;
  title: string;
  priority: string;
  due_on?: string | null;
  done: boolean;
}

export interface CardView {
  id: string;
  ref: string;
  title: string;
  workflow_status: string;
  gated?: boolean;
  criteria_done?: number;
  criteria_total?: number;
  due_on?: string | null;
}

export interface SnippetView {
  id: string;
  name: string;
  slug: string;
  type: string;
  version: number;
  body: string;
  category?: string | null;
  tags?: string[];
  public_url?: string | null;
}

export interface SubscriptionView {
  milestone_ref: string;
  channel_id: string;
  cadence: string;
  tz: string;
}

/** The action id of every todo's Done button; its value is the todo id. */
export const TODO_DONE_ACTION = 'todo_done';

/*
 * Slack's limits (Block Kit reference): at most 50 blocks in a message; a text object at
 * most 3000 characters, a section field 2000, a header 150. Every view stays inside them,
 * and a list or body cut short says how much it left out.
 */
export const MAX_BLOCKS = 50;
export const SECTION_TEXT_MAX = 3000;
const FIELD_TEXT_MAX = 2000;
const HEADER_TEXT_MAX = 150;
const BUTTON_TEXT_MAX = 75;
// The fallback `text` is what notifications show; no longer than a section.
const MESSAGE_TEXT_MAX = 3000;
/** Todos one list shows: with a note, a heading and the "and N more" line, well under 50 blocks. */
export const MAX_TODOS = 40;

/** Text a user typed, made safe for mrkdwn: Slack's control characters are &, < and >. */
export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** At most `max` characters, ending in … when cut; never half an escape (`&am`) or half a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  cut = cut.replace(/&[a-z]{0,3}$/, '');
  return `${cut}…`;
}

function plain(text: string): types.PlainTextElement {
  return { type: 'plain_text', text: clip(text, HEADER_TEXT_MAX), emoji: true };
}

function button(text: string, actionId: string, value: string): types.Button {
  return { type: 'button', text: { type: 'plain_text', text: clip(text, BUTTON_TEXT_MAX), emoji: true }, action_id: actionId, value, style: 'primary' };
}

function mrkdwn(text: string, max = SECTION_TEXT_MAX): types.MrkdwnElement {
  return { type: 'mrkdwn', text: clip(text, max) };
}

function field(text: string): types.MrkdwnElement {
  return mrkdwn(text, FIELD_TEXT_MAX);
}

function section(text: string): types.SectionBlock {
  return { type: 'section', text: mrkdwn(text) };
}

function context(text: string): types.ContextBlock {
  return { type: 'context', elements: [mrkdwn(text)] };
}

/**
 * A message: `text` is its fallback (notifications, screen readers), which Slack reads as
 * mrkdwn too, so it is given as plain words and escaped here: a milestone named
 * `<!channel>` never pings anyone. Blocks escape what users wrote where they build mrkdwn.
 */
function message(text: string, blocks?: types.KnownBlock[]): SlackReply {
  const short = clip(escapeText(text), MESSAGE_TEXT_MAX);
  return blocks ? { text: short, blocks: blocks.slice(0, MAX_BLOCKS) } : { text: short };
}

function ephemeral(text: string, blocks?: types.KnownBlock[]): SlackReply {
  return { response_type: 'ephemeral', ...message(text, blocks) };
}

/** A plain ephemeral message (usage, errors, how to link); any `<`, `>` or `&` in it shows as is. */
export function messageView(text: string): SlackReply {
  return ephemeral(text);
}

const STATUS_LABELS: Record<WorkflowStatus, string> = {
  backlog: 'Backlog',
  in_progress: 'In progress',
  in_review: 'In review',
  done: 'Done',
};

export function statusLabel(status: string): string {
  return STATUS_LABELS[status as WorkflowStatus] ?? status;
}

const PRIORITY_MARKS: Record<Priority, string> = { urgent: ':red_circle:', high: ':large_orange_circle:', medium: ':white_circle:', low: ':large_blue_circle:' };

function ratio(done: number | undefined, total: number | undefined): string {
  return `${done ?? 0} / ${total ?? 0}`;
}

/** Milestone status with its four numbers, the same ones `/v1/milestones/{ref}/status` returns. */
export function milestoneStatusView(m: MilestoneView): SlackReply {
  const text =
    `${m.ref} ${m.name}: ${m.cards_done}/${m.cards_total} cards done, ` +
    `${m.criteria_done ?? 0}/${m.criteria_total ?? 0} criteria done`;
  const fields: types.MrkdwnElement[] = [
    field(`*Cards done*\n${ratio(m.cards_done, m.cards_total)}`),
    field(`*Criteria done*\n${ratio(m.criteria_done, m.criteria_total)}`),
  ];
  if (m.kind) fields.push(field(`*Kind*\n${escapeText(m.kind)}`));
  if (m.ends_on) fields.push(field(`*Ends*\n${m.ends_on}`));
  return ephemeral(text, [
    { type: 'header', text: plain(`${m.ref} · ${m.name}`) },
    { type: 'section', fields },
  ]);
}

function todoLine(t: TodoView): string {
  const due = t.due_on ? ` · due ${t.due_on}` : '';
  return `${PRIORITY_MARKS[t.priority as Priority] ?? ''} *${escapeText(t.title)}*\n${t.priority}${due} · \`${t.id}\``.trim();
}

/**
 * One todo with its Done button; block ids carry the todo id so a click can find its block.
 * Its done state has a block id of its own: a message replaced after a click gets a new
 * block where the old one changed, as Slack asks.
 */
export function todoBlocks(t: TodoView): types.KnownBlock[] {
  if (t.done) return [{ ...section(`:white_check_mark: ~${escapeText(t.title)}~ done`), block_id: `todo:${t.id}:done` }];
  return [
    {
      type: 'section',
      block_id: `todo:${t.id}`,
      text: mrkdwn(todoLine(t)),
      accessory: button('Done', TODO_DONE_ACTION, t.id),
    },
  ];
}

export interface TodoListOptions {
  heading?: string;
  /** A line above the list (what a click just did). */
  note?: string;
  /** More open todos exist than `todos` holds (their page had a next cursor). */
  truncated?: boolean;
}

/** How many a list left out: exact, or "N+" when the page it came from was itself cut. */
function moreLine(left: number, truncated: boolean): string {
  return `…and ${left}${truncated ? '+' : ''} more.`;
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
  blocks.push(section(`*${escapeText(heading)}*`));
  const shown = todos.slice(0, MAX_TODOS);
  for (const t of shown) blocks.push(...todoBlocks(t));
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

/** The block id of a reminder's heading: a Done click on a reminder replaces it with chat.update. */
export const REMINDER_BLOCK = 'tack_reminder';

export interface ReminderOptions {
  /** The card the todo mirrors a criterion of. */
  card?: { ref: string; title: string } | null;
  /** The owner's calendar day: a todo due before it is overdue (a caught-up reminder). */
  today?: string;
}

/**
 * The due-todo reminder the reminders job sends as a direct message: the todo with its
 * priority and Done button, and its card (ref, title and the command that shows it).
 */
export function todoReminderView(t: TodoView, options: ReminderOptions = {}): SlackReply {
  const overdue = options.today !== undefined && !!t.due_on && t.due_on < options.today;
  const heading = overdue ? `:alarm_clock: Overdue since ${t.due_on}` : ':alarm_clock: Due today';
  const blocks: types.KnownBlock[] = [{ ...section(heading), block_id: REMINDER_BLOCK }, ...todoBlocks(t)];
  const card = options.card;
  if (card) blocks.push(context(`Card *${escapeText(card.ref)}* ${escapeText(card.title)} · \`/card ${escapeText(card.ref)}\``));
  const when = !t.due_on ? '' : overdue ? ` (overdue since ${t.due_on})` : ` today (${t.due_on})`;
  const onCard = card ? ` on card ${card.ref}` : '';
  return message(`Reminder: "${t.title}" (${t.priority})${onCard} is due${when}.`, blocks);
}

export function cardView(c: CardView, heading?: string): SlackReply {
  const fields: types.MrkdwnElement[] = [field(`*Status*\n${statusLabel(c.workflow_status)}`)];
  if (c.criteria_total !== undefined) fields.push(field(`*Criteria done*\n${ratio(c.criteria_done, c.criteria_total)}`));
  if (c.due_on) fields.push(field(`*Due*\n${c.due_on}`));
  if (c.gated) fields.push(field('*Gated*\nhumans move it to done'));
  const blocks: types.KnownBlock[] = [];
  if (heading) blocks.push(context(escapeText(heading)));
  blocks.push(section(`*${escapeText(c.ref)}* ${escapeText(c.title)}`), { type: 'section', fields });
  return ephemeral(`${heading ? `${heading} ` : ''}${c.ref} ${c.title} (${statusLabel(c.workflow_status)})`, blocks);
}

export function cardMovedView(c: CardView): SlackReply {
  return cardView(c, `Moved ${c.ref} to ${statusLabel(c.workflow_status)}.`);
}

export interface FittedBody {
  shown: string;
  /** Lines after the cut (the one cut through counts). */
  moreLines: number;
  moreChars: number;
}

/**
 * The longest start of `body` that takes at most `max` characters once escaped, cut at a
 * line end when one falls in its second half; with how much it left out.
 */
export function fitBody(body: string, max: number): FittedBody {
  let used = 0;
  let end = 0;
  while (end < body.length) {
    const ch = body[end]!;
    const cost = ch === '&' ? 5 : ch === '<' || ch === '>' ? 4 : 1;
    if (used + cost > max) break;
    used += cost;
    end += 1;
  }
  if (end >= body.length) return { shown: body, moreLines: 0, moreChars: 0 };
  const lineEnd = body.lastIndexOf('\n', end);
  if (lineEnd > end / 2) end = lineEnd;
  else if (/[\ud800-\udbff]/.test(body[end - 1] ?? '')) end -= 1;
  const rest = body.slice(end).replace(/^\n/, '');
  return { shown: body.slice(0, end), moreLines: rest.split('\n').length, moreChars: rest.length };
}

/** Name, type and version, the body in a code block (cut to fit one section), and the public link. */
export function snippetView(s: SnippetView): SlackReply {
  // A body's own ``` would end the code block early.
  const body = s.body.replace(/```/g, "'''");
  // The fences and their newlines take 8 of the section's characters.
  const { shown, moreLines, moreChars } = fitBody(body, SECTION_TEXT_MAX - 8);
  const meta = [escapeText(s.type), `v${s.version}`, s.category ? escapeText(s.category) : '', ...(s.tags ?? []).map((t) => `#${escapeText(t)}`)]
    .filter(Boolean)
    .join(' · ');
  const blocks: types.KnownBlock[] = [
    { type: 'header', text: plain(s.name) },
    context(`\`${escapeText(s.slug)}\` · ${meta}`),
    section(`\`\`\`\n${escapeText(shown)}\n\`\`\``),
  ];
  if (moreChars > 0) {
    const more = moreLines > 1 ? `${moreLines} more lines` : `${moreChars} more characters`;
    blocks.push(context(`…and ${more}${s.public_url ? ', in full at the public link' : ''}.`));
  }
  if (s.public_url) blocks.push(context(`<${s.public_url}|Public link>`));
  return ephemeral(`${s.name} (${s.slug}, v${s.version})`, blocks);
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
