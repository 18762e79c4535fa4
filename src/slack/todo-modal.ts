import type { ArgsOf } from '../operations/call.js';
import type { App, MessageShortcut, ViewSubmitAction, types } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { howToLinkMessage, howToLinkShort } from '../domain/slack-links.js';
import { briefError } from '../log-error.js';
import { slackCaller, type SlackCaller } from './caller.js';
import type { SlackReply } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { publishHome } from './home.js';
import { classifySlackError, describeSlackFailure } from './slack-errors.js';
import { todoCreatedView } from './views/todos.js';
import {
  CREATE_TODO_CALLBACK,
  formNotOpenedView,
  modalErrors,
  notLinkedModalView,
  readTodoModal,
  readTodoModalMetadata,
  titleFromMessage,
  todoModalView,
} from './views/todo-modal.js';

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

/** An open modal: what views.update needs to replace it (the hash: only if nothing replaced it since). */
export interface OpenView {
  view_id: string;
  hash?: string;
}

/**
 * Opens the todo form at once with the interaction's trigger_id, which lives 3 seconds:
 * before anything that may wait (the command queue, a users.info lookup, a permalink). What
 * the form needs beyond the interaction comes after, by views.update, or at submission. When
 * Slack does not open it (an expired trigger, a rate limit), the person is told (`tell`) and
 * undefined is returned.
 */
export async function openTodoForm(client: WebClient, triggerId: string, view: types.ModalView, tell: (reply: SlackReply) => Promise<unknown>, log: Logger): Promise<OpenView | undefined> {
  try {
    const res = await client.views.open({ trigger_id: triggerId, view });
    return res.view?.id ? { view_id: res.view.id, ...(res.view.hash ? { hash: res.view.hash } : {}) } : undefined;
  } catch (err) {
    const failure = classifySlackError(err);
    log.warn({ err: describeSlackFailure(failure) }, 'Slack did not open the todo form');
    await tell(formNotOpenedView(failure));
    return undefined;
  }
}

/** Replaces an open form; a failure (it was submitted or closed meanwhile) is only logged. */
async function updateForm(client: WebClient, at: OpenView, view: types.ModalView, log: Logger): Promise<void> {
  try {
    await client.views.update({ ...at, view });
  } catch (err) {
    log.info({ err: describeSlackFailure(classifySlackError(err)) }, 'the todo form was not updated (submitted or closed meanwhile?)');
  }
}

/**
 * After the form opened: who is asking (linked by Slack id, or on first use by e-mail). A
 * Slack user with no tack member gets the form replaced by how to link; undefined then.
 */
export async function checkFormCaller(deps: SlackDeps, client: WebClient, slackUserId: string, at: OpenView | undefined, log: Logger): Promise<SlackCaller | undefined> {
  const caller = await slackCaller(deps, client, slackUserId, log);
  if (!caller && at) await updateForm(client, at, notLinkedModalView(howToLinkMessage(slackUserId)), log);
  return caller;
}

/**
 * The `create_todo` message shortcut opens the todo modal, prefilled with the message's text;
 * the message's permalink is added to it (views.update) once Slack gives it. Its submission
 * runs createTodo as the member. A refused submission answers `response_action: errors` with
 * the operation's field errors under their inputs (the modal stays open); an accepted one
 * closes it, tells the member where they used it, and refreshes their Home tab.
 */
export function registerTodoModal(app: App, deps: SlackDeps): void {
  app.shortcut<MessageShortcut>({ type: 'message_action', callback_id: CREATE_TODO_CALLBACK }, async ({ ack, shortcut, client }) => {
    await ack();
    const log = deps.log.child({ slack_shortcut: CREATE_TODO_CALLBACK, slack_user: shortcut.user.id });
    const form = { title: titleFromMessage(shortcut.message.text), response_url: shortcut.response_url };
    const tell = (reply: SlackReply) => postToResponseUrl(shortcut.response_url, reply, log);
    const at = await openTodoForm(client, shortcut.trigger_id, todoModalView(form), tell, log);
    if (!at) return;
    const [caller, sourceUrl] = await Promise.all([
      checkFormCaller(deps, client, shortcut.user.id, at, log),
      permalink(client, shortcut.channel.id, shortcut.message.ts, log),
    ]);
    // Submitted before Slack gave the permalink: the todo is made without it.
    if (caller && sourceUrl) await updateForm(client, at, todoModalView({ ...form, source_url: sourceUrl }), log);
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
      // The form's values as typed, unchecked: the operation's schema checks them, and its field
      // errors are shown under the form's inputs.
      const input = readTodoModal(view.state.values, metadata) as ArgsOf<'createTodo'>;
      reply = todoCreatedView(await caller.call('createTodo', input));
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
