import type { App, BlockAction, ButtonAction, RespondFn, StaticSelectAction, types } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { howToLinkMessage } from '../domain/slack-links.js';
import { localToday } from '../domain/todo-due.js';
import { slackCaller, type SlackCaller } from './caller.js';
import type { SlackReply } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { publishHome } from './home.js';
import { refreshReminder, type ReminderAt } from './reminder-message.js';
import { classifySlackError, describeSlackFailure } from './slack-errors.js';
import { errorReply } from './replies.js';
import { openTodosThisWeek, type OpenTodos } from './todo-list.js';
import { messageView } from './views/blocks.js';
import { MOVE_TO_DONE_ACTION, NOTIFICATION_BLOCK_PREFIX, requestAnsweredBlocks } from './views/notifications.js';
import { markNotificationsReadOp } from '../operations/notifications.js';
import { mentionNames } from './mention-names.js';
import { CARD_BLOCK_PREFIX, CARD_MOVE_ACTION, cardMovedView, cardView, isWorkflowStatus } from './views/cards.js';
import {
  isTodoBlock,
  isReminderBlock,
  SNOOZE_ACTIONS,
  TODO_DONE_ACTION,
  todoDoneView,
  todoListView,
  todoSnoozedView,
  type SnoozeUntil,
  type TodoView,
} from './views/todos.js';

/** A reply that leaves the clicked message alone and tells only the clicker. */
function aside(reply: SlackReply): SlackReply {
  return { ...reply, response_type: 'ephemeral', replace_original: false };
}

function blockId(block: unknown): string | undefined {
  const id = (block as { block_id?: unknown }).block_id;
  return typeof id === 'string' ? id : undefined;
}

function messageBlocks(body: BlockAction): types.KnownBlock[] | undefined {
  const blocks: unknown = body.message?.blocks;
  return Array.isArray(blocks) ? (blocks as types.KnownBlock[]) : undefined;
}

/** The blocks of the clicked message with the todo's own blocks (its line, its snooze buttons) replaced by `next`. */
function withTodoReplaced(blocks: types.KnownBlock[], todoId: string, next: types.KnownBlock[]): types.KnownBlock[] {
  let placed = false;
  return blocks.flatMap((b) => {
    if (!isTodoBlock(blockId(b), todoId)) return [b];
    if (placed) return [];
    placed = true;
    return next;
  });
}

/**
 * The clicked message with the todo shown in its new state: its own blocks when Slack sent
 * them (a reminder, or any message the bot posted), else (an ephemeral `/todo` list, whose
 * blocks Slack does not send back) the caller's list again, which no longer holds it.
 */
async function replacement(body: BlockAction, changed: Changed, relist: () => Promise<OpenTodos>): Promise<SlackReply> {
  const { todo, view, note } = changed;
  const blocks = messageBlocks(body);
  if (blocks?.some((b) => isTodoBlock(blockId(b), todo.id))) {
    // A reminder keeps its own text (what notifications and screen readers say of the day's
    // list); Slack sends it back as it was posted, already escaped.
    const text = isReminder(body) && body.message?.text ? (body.message.text as string) : view.text;
    return { replace_original: true, text, blocks: withTodoReplaced(blocks, todo.id, view.blocks ?? []) };
  }
  let open: OpenTodos;
  try {
    open = await relist();
  } catch {
    // The todo changed either way; without a list, show just its new state.
    return { replace_original: true, text: view.text, ...(view.blocks ? { blocks: view.blocks } : {}) };
  }
  const list = todoListView(
    open.todos.filter((t) => t.id !== todo.id),
    { note, truncated: open.truncated },
  );
  return { ...list, replace_original: true };
}

/** A todo after a click: its new state as a view (escaped), and a line above a list (raw text, escaped there). */
interface Changed {
  todo: TodoView;
  view: SlackReply;
  note: string;
}

type TodoChange = (caller: SlackCaller, todoId: string) => Promise<Changed>;

const complete: TodoChange = async (caller, todoId) => {
  const todo = await caller.call('completeTodo', { id: todoId });
  return { todo, view: todoDoneView(todo), note: `:white_check_mark: Done: ${todo.title}` };
};

/**
 * Snoozes a todo through updateTodo: its due date becomes tomorrow, or a week from today, in
 * the member's time zone by the domain's one rule (`caller.timeZone()`).
 */
function snooze(until: SnoozeUntil, now: Date): TodoChange {
  return async (caller, todoId) => {
    const dueOn = localToday(now, await caller.timeZone(), until === 'tomorrow' ? 1 : 7);
    const todo = await caller.call('updateTodo', { id: todoId, due_on: dueOn });
    return { todo, view: todoSnoozedView(todo), note: `:zzz: Snoozed until ${todo.due_on}: ${todo.title}` };
  };
}

/** Runs a todo button (Done, Snooze) as the clicking member; never throws. Refreshes their Home tab. */
export async function runTodoAction(deps: SlackDeps, body: BlockAction, todoId: string, client: WebClient, change: TodoChange, log: Logger): Promise<SlackReply | undefined> {
  try {
    const caller = await slackCaller(deps, client, body.user.id, log);
    if (!caller) return aside(messageView(howToLinkMessage(body.user.id)));
    const changed = await change(caller, todoId);
    // Clicked in the Home tab: publishing it again is the answer.
    if (body.container.type === 'view') {
      await publishHome(deps, client, body.user.id, log, caller);
      return undefined;
    }
    const reminder = isReminder(body) ? reminderOf(body) : undefined;
    if (reminder && (await refreshedFromDatabase(deps, client, reminder, caller.member.id, log))) {
      await publishHome(deps, client, body.user.id, log, caller);
      return undefined;
    }
    const reply = await replacement(body, changed, () => openTodosThisWeek(caller.call));
    await publishHome(deps, client, body.user.id, log, caller);
    return reply;
  } catch (err) {
    return aside(errorReply(err, log));
  }
}

/** Where the clicked message is: its channel and ts. */
function reminderOf(body: BlockAction): ReminderAt | undefined {
  const channel = body.channel?.id ?? (body.container.channel_id as string | undefined);
  const ts = body.message?.ts ?? (body.container.message_ts as string | undefined);
  return channel && ts ? { channel, ts } : undefined;
}

/**
 * A click on the day's reminder: the message is shown again as the database holds it (every
 * todo it lists in its state now), never rebuilt from the click's snapshot. False when tack
 * has no record of the message (then the snapshot is all there is). A refusal by Slack is
 * logged: the todo changed either way, and the next change shows it.
 */
async function refreshedFromDatabase(deps: SlackDeps, client: WebClient, at: ReminderAt, memberId: string, log: Logger): Promise<boolean> {
  try {
    return await refreshReminder(deps.runtime.db, client, at, log, memberId);
  } catch (err) {
    log.warn({ err: describeSlackFailure(classifySlackError(err)) }, 'could not update the reminder after a click');
    return true;
  }
}

function isReminder(body: BlockAction): boolean {
  return messageBlocks(body)?.some((b) => isReminderBlock(blockId(b))) ?? false;
}

/**
 * Delivers the answer to a click: through `response_url`, or with chat.update for a
 * reminder (often clicked long after its response_url expired: it is the bot's own message
 * in a DM, so it is replaced by its channel and ts), or as an ephemeral note.
 */
async function deliver(body: BlockAction, reply: SlackReply | undefined, respond: RespondFn, client: WebClient): Promise<void> {
  if (!reply) return;
  if (body.response_url && !isReminder(body)) {
    await respond(reply);
    return;
  }
  const channel = body.channel?.id ?? (body.container.channel_id as string | undefined);
  const ts = body.message?.ts ?? (body.container.message_ts as string | undefined);
  if (channel && ts && reply.replace_original) {
    await client.chat.update({ channel, ts, text: reply.text, ...(reply.blocks ? { blocks: reply.blocks } : {}) });
  } else if (channel) {
    await client.chat.postEphemeral({ channel, user: body.user.id, text: reply.text, ...(reply.blocks ? { blocks: reply.blocks } : {}) });
  }
}

/**
 * `/card`'s status select: moves the card as the member, then replaces the answer with the
 * card's new state; a refusal (a viewer, a gate) is shown in place, above the card as it
 * stands, its select back on the current status.
 */
export async function runCardMove(deps: SlackDeps, body: BlockAction, action: StaticSelectAction, client: WebClient, log: Logger): Promise<SlackReply> {
  const cardId = action.block_id.startsWith(CARD_BLOCK_PREFIX) ? action.block_id.slice(CARD_BLOCK_PREFIX.length) : '';
  const status = action.selected_option?.value ?? '';
  try {
    const caller = await slackCaller(deps, client, body.user.id, log);
    if (!caller) return aside(messageView(howToLinkMessage(body.user.id)));
    if (!isWorkflowStatus(status)) return aside(messageView(`"${status}" is not a status.`));
    try {
      const moved = await caller.call('moveCard', { id: cardId, workflow_status: status });
      await publishHome(deps, client, body.user.id, log, caller);
      return { ...cardMovedView(moved, await mentionNames(caller.call, moved.description)), replace_original: true };
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const card = await caller.call('getCard', { id: cardId });
      return { ...cardView(card, { note: `:no_entry: ${err.userMessage}`, names: await mentionNames(caller.call, card.description) }), replace_original: true };
    }
  } catch (err) {
    return aside(errorReply(err, log));
  }
}

/**
 * An agent's refused request's **Move to done**: moves the card to done as the clicking human
 * through moveCard (so the gate, the role and the scope are judged for them: a viewer, or a
 * Slack user linked to no member, is refused), marks the notification read, and puts the
 * outcome in place of the button. A refusal is told to the clicker alone, the button kept.
 */
export async function runMoveToDone(deps: SlackDeps, body: BlockAction, action: ButtonAction, client: WebClient, log: Logger): Promise<SlackReply | undefined> {
  const [cardId = '', notificationId] = (action.value ?? '').split(' ');
  try {
    const caller = await slackCaller(deps, client, body.user.id, log);
    if (!caller) return aside(messageView(howToLinkMessage(body.user.id)));
    let outcome: string;
    try {
      const moved = await caller.call('moveCard', { id: cardId, workflow_status: 'done' });
      outcome = `✓ ${caller.member.name} moved ${moved.ref} to done.`;
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return aside(messageView(`Not moved: ${err.userMessage}`));
    }
    if (notificationId) await caller.call(markNotificationsReadOp, { ids: [notificationId] }).catch(() => undefined);
    const blocks = messageBlocks(body);
    const channel = body.channel?.id ?? (body.container.channel_id as string | undefined);
    const ts = body.message?.ts ?? (body.container.message_ts as string | undefined);
    if (blocks && channel && ts) {
      const next = blocks.flatMap((b) => (blockId(b) === `${NOTIFICATION_BLOCK_PREFIX}${notificationId}` ? requestAnsweredBlocks(b, outcome) : [b]));
      await client.chat.update({ channel, ts, text: (body.message?.text as string | undefined) ?? outcome, blocks: next });
      return undefined;
    }
    return aside(messageView(outcome));
  } catch (err) {
    return aside(errorReply(err, log));
  }
}

/** The buttons and selects of tack's messages and Home tab. */
export function registerActions(app: App, deps: SlackDeps): void {
  const todoButton = (actionId: string, change: (now: Date) => TodoChange) =>
    app.action<BlockAction<ButtonAction>>({ type: 'block_actions', action_id: actionId }, async ({ ack, body, action, respond, client }) => {
      await ack();
      const log = deps.log.child({ slack_action: actionId, slack_user: body.user.id });
      const reply = await runTodoAction(deps, body, action.value ?? '', client, change(deps.runtime.clock()), log);
      await deliver(body, reply, respond, client);
    });
  todoButton(TODO_DONE_ACTION, () => complete);
  todoButton(SNOOZE_ACTIONS.tomorrow, (now) => snooze('tomorrow', now));
  todoButton(SNOOZE_ACTIONS.week, (now) => snooze('week', now));

  app.action<BlockAction<StaticSelectAction>>({ type: 'block_actions', action_id: CARD_MOVE_ACTION }, async ({ ack, body, action, respond, client }) => {
    await ack();
    const log = deps.log.child({ slack_action: CARD_MOVE_ACTION, slack_user: body.user.id });
    await deliver(body, await runCardMove(deps, body, action, client, log), respond, client);
  });
  app.action<BlockAction<ButtonAction>>({ type: 'block_actions', action_id: MOVE_TO_DONE_ACTION }, async ({ ack, body, action, respond, client }) => {
    await ack();
    const log = deps.log.child({ slack_action: MOVE_TO_DONE_ACTION, slack_user: body.user.id });
    const reply = await runMoveToDone(deps, body, action, client, log);
    if (!reply) return;
    const channel = body.channel?.id ?? (body.container.channel_id as string | undefined);
    if (body.response_url) await respond(reply);
    else if (channel) await client.chat.postEphemeral({ channel, user: body.user.id, text: reply.text });
  });
  // The sign-in and connect links' buttons open their URL in the browser; Slack still sends the click.
  app.action({ type: 'block_actions', action_id: 'signin_open' }, async ({ ack }) => ack());
  app.action({ type: 'block_actions', action_id: 'slack_connect_open' }, async ({ ack }) => ack());
}
