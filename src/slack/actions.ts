import type { App, BlockAction, ButtonAction, types } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { howToLinkMessage, slackPrincipal } from '../domain/slack-links.js';
import { callOperation, type CommandContext, type SlackReply } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { profileLookup, resolveSlackMember } from './member-link.js';
import { errorReply } from './replies.js';
import { openTodosThisWeek, type OpenTodos } from './todo-list.js';
import { messageView, REMINDER_BLOCK, TODO_DONE_ACTION, todoBlocks, todoDoneView, todoListView, type TodoView } from './views.js';

/** A reply that leaves the clicked message alone and tells only the clicker. */
function aside(reply: SlackReply): SlackReply {
  return { ...reply, response_type: 'ephemeral', replace_original: false };
}

function blockId(block: unknown): string | undefined {
  const id = (block as { block_id?: unknown }).block_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The clicked message with the completed todo shown done: its own blocks when Slack sent
 * them (a reminder, or any message the bot posted), else (an ephemeral `/todo` list, whose
 * blocks Slack does not send back) the caller's list again, which no longer holds it.
 */
async function replacement(body: BlockAction, todo: TodoView, relist: () => Promise<OpenTodos>): Promise<SlackReply> {
  const blocks = (body.message?.blocks ?? undefined) as types.KnownBlock[] | undefined;
  const mine = `todo:${todo.id}`;
  if (Array.isArray(blocks) && blocks.some((b) => blockId(b) === mine)) {
    const next = blocks.flatMap((b) => (blockId(b) === mine ? todoBlocks({ ...todo, done: true }) : [b]));
    return { replace_original: true, text: todoDoneView(todo).text, blocks: next };
  }
  let open: OpenTodos;
  try {
    open = await relist();
  } catch {
    // The todo is done either way; without a list, show just its done state.
    const { text, blocks: done } = todoDoneView(todo);
    return { replace_original: true, text, ...(done ? { blocks: done } : {}) };
  }
  const list = todoListView(
    open.todos.filter((t) => t.id !== todo.id),
    { note: `:white_check_mark: Done: ${todo.title}`, truncated: open.truncated },
  );
  return { ...list, replace_original: true };
}

/** Completes the todo of a Done button as the clicking member; never throws. */
export async function runTodoDone(deps: SlackDeps, body: BlockAction, todoId: string, client: WebClient): Promise<SlackReply> {
  const log = deps.log.child({ slack_action: TODO_DONE_ACTION, slack_user: body.user.id });
  try {
    const rt = deps.runtime;
    const member = await resolveSlackMember(rt, deps.config.slack.org, body.user.id, profileLookup(client, body.user.id, log));
    if (!member) return aside(messageView(howToLinkMessage(body.user.id)));
    const principal = slackPrincipal(member);
    const call: CommandContext['call'] = (operation, input) => callOperation(rt, operation, principal, input);
    const todo = await call<TodoView>('completeTodo', { id: todoId });
    return await replacement(body, todo, () => openTodosThisWeek(call));
  } catch (err) {
    return aside(errorReply(err, log));
  }
}

function isReminder(body: BlockAction): boolean {
  const blocks: unknown = body.message?.blocks;
  return Array.isArray(blocks) && blocks.some((b) => blockId(b) === REMINDER_BLOCK);
}

/**
 * The Done button (`action_id` todo_done, value the todo id): ack, complete the todo, then
 * replace the message through `response_url`, or with chat.update for a reminder or when
 * there is none.
 */
export function registerActions(app: App, deps: SlackDeps): void {
  app.action<BlockAction<ButtonAction>>({ type: 'block_actions', action_id: TODO_DONE_ACTION }, async ({ ack, body, action, respond, client }) => {
    await ack();
    const reply = await runTodoDone(deps, body, action.value ?? '', client);
    // A reminder is often clicked long after its response_url (30 minutes) expired: it is
    // the bot's own message in a DM, so it is replaced by its channel and ts instead.
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
  });
}
