import type { App, MessageShortcut, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { howToLinkMessage, howToLinkShort } from '../domain/slack-links.js';
import { briefError } from '../log-error.js';
import { slackCaller } from './caller.js';
import type { SlackReply } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { publishHome } from './home.js';
import { messageView } from './views/blocks.js';
import { todoCreatedView } from './views/todos.js';
import { CREATE_TODO_CALLBACK, modalErrors, readTodoModal, readTodoModalMetadata, titleFromMessage, todoModalView } from './views/todo-modal.js';

export { CREATE_TODO_CALLBACK };

/** Posts a reply to a response_url (a shortcut's or a command's); a failure is logged. */
export async function postToResponseUrl(url: string, reply: SlackReply, log: Logger): Promise<void> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ response_type: 'ephemeral', ...reply }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) log.warn({ status: res.status }, 'Slack refused the response_url post');
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'could not post to the response_url');
  }
}

/** The permalink of a message (chat.getPermalink); undefined when Slack does not give one. */
async function permalink(client: WebClient, channel: string, ts: string, log: Logger): Promise<string | undefined> {
  try {
    return (await client.chat.getPermalink({ channel, message_ts: ts })).permalink;
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'no permalink for the message; the todo is made without source_url');
    return undefined;
  }
}

/**
 * The `create_todo` message shortcut opens the todo modal, prefilled with the message's text;
 * its submission runs createTodo as the member. A refused submission answers
 * `response_action: errors` with the operation's field errors under their inputs (the modal
 * stays open); an accepted one closes it, tells the member where they used it, and refreshes
 * their Home tab.
 */
export function registerTodoModal(app: App, deps: SlackDeps): void {
  app.shortcut<MessageShortcut>({ type: 'message_action', callback_id: CREATE_TODO_CALLBACK }, async ({ ack, shortcut, client }) => {
    await ack();
    const log = deps.log.child({ slack_shortcut: CREATE_TODO_CALLBACK, slack_user: shortcut.user.id });
    const [caller, sourceUrl] = await Promise.all([
      slackCaller(deps, client, shortcut.user.id, log),
      permalink(client, shortcut.channel.id, shortcut.message.ts, log),
    ]);
    if (!caller) {
      await postToResponseUrl(shortcut.response_url, messageView(howToLinkMessage(shortcut.user.id)), log);
      return;
    }
    const view = todoModalView({ title: titleFromMessage(shortcut.message.text), response_url: shortcut.response_url, ...(sourceUrl ? { source_url: sourceUrl } : {}) });
    await client.views.open({ trigger_id: shortcut.trigger_id, view });
  });

  app.view<ViewSubmitAction>(CREATE_TODO_CALLBACK, async ({ ack, body, view, client }) => {
    const user = body.user.id;
    const log = deps.log.child({ slack_view: CREATE_TODO_CALLBACK, slack_user: user });
    const metadata = readTodoModalMetadata(view.private_metadata);
    const caller = await slackCaller(deps, client, user, log);
    if (!caller) {
      await ack({ response_action: 'errors', errors: modalErrors([], howToLinkShort(user)) });
      return;
    }
    let reply: SlackReply;
    try {
      reply = todoCreatedView(await caller.call('createTodo', readTodoModal(view.state.values, metadata)));
    } catch (err) {
      if (!(err instanceof AppError)) log.error({ error: briefError(err) }, 'creating a todo from the modal failed');
      const errors =
        err instanceof AppError ? modalErrors(err.fields ?? [], err.userMessage) : modalErrors([], 'Something went wrong on our side; try again in a moment.');
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    if (metadata.response_url) await postToResponseUrl(metadata.response_url, reply, log);
    await publishHome(deps, client, user, log, caller);
  });
}
