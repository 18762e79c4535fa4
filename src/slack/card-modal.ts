import type { App, MessageShortcut, ViewSubmitAction } from '@slack/bolt';
import type { Logger } from 'pino';
import type { WebClient } from '@slack/web-api';
import { AppError } from '../domain/errors.js';
import { howToLinkShort } from '../domain/slack-links.js';
import { briefError } from '../log-error.js';
import type { ArgsOf } from '../operations/call.js';
import { slackCaller, type SlackCaller } from './caller.js';
import type { SlackReply } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { profileLookup, resolveSlackMember } from './member-link.js';
import { checkFormCaller, openTodoForm, postToResponseUrl } from './todo-modal.js';
import { CARD_MODAL_FIELDS, CREATE_CARD_CALLBACK, cardCreatedView, cardModalView, readCardModal, readCardModalMetadata } from './views/card-modal.js';
import { clip } from './views/blocks.js';

export { CREATE_CARD_CALLBACK };

const ERROR_TEXT_MAX = 150;

/** A refused submission's errors, each under its input (anything else under the title). */
function cardModalErrors(fields: readonly { field: string; message: string }[], general?: string): Record<string, string> {
  const errors: Record<string, string> = {};
  const add = (block: string, text: string) => {
    errors[block] = clip(errors[block] ? `${errors[block]} ${text}` : text, ERROR_TEXT_MAX);
  };
  for (const f of fields) {
    const block = (CARD_MODAL_FIELDS as readonly string[]).includes(f.field) ? f.field : f.field.startsWith('assignee_ids') ? 'assignee_ids' : 'title';
    add(block, f.message);
  }
  if (general && Object.keys(errors).length === 0) add('title', general);
  return errors;
}

/** The members of the Slack users picked as assignees; the first who has none is named. */
async function assigneeMembers(deps: SlackDeps, client: WebClient, users: readonly string[], log: Logger): Promise<{ ids: string[] } | { unknown: string }> {
  const ids: string[] = [];
  for (const user of users) {
    const member = await resolveSlackMember(deps.runtime, deps.config.slack.org, user, profileLookup(client, user, log));
    if (!member) return { unknown: user };
    ids.push(member.id);
  }
  return { ids };
}

async function boardsOf(caller: SlackCaller): Promise<{ slug: string; name: string }[]> {
  const page = await caller.call('listBoards', { limit: 100 });
  return page.data.map((b) => ({ slug: b.slug, name: b.name }));
}

/**
 * The `create_card` message shortcut (contract §11): a modal with board, title (the message,
 * cut to the title's limit), description (the message and its permalink), assignees and
 * status, opened at once with the trigger_id (it lives 3 seconds); the boards and the
 * permalink are filled in by views.update once known. Its submission runs createCard as the
 * Slack user's own member; a refusal is shown under the modal's inputs.
 */
export function registerCardModal(app: App, deps: SlackDeps): void {
  app.shortcut<MessageShortcut>({ type: 'message_action', callback_id: CREATE_CARD_CALLBACK }, async ({ ack, shortcut, client }) => {
    await ack();
    const log = deps.log.child({ slack_shortcut: CREATE_CARD_CALLBACK, slack_user: shortcut.user.id });
    const form = { text: shortcut.message.text, response_url: shortcut.response_url };
    const tell = (reply: SlackReply) => postToResponseUrl(shortcut.response_url, reply, log);
    const at = await openTodoForm(client, shortcut.trigger_id, cardModalView(form), tell, log);
    if (!at) return;
    const caller = await checkFormCaller(deps, client, shortcut.user.id, at, log);
    if (!caller) return;
    let permalink: string | undefined;
    try {
      permalink = (await client.chat.getPermalink({ channel: shortcut.channel.id, message_ts: shortcut.message.ts })).permalink;
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'no permalink for the message; the description goes without it');
    }
    try {
      await client.views.update({ ...at, view: cardModalView({ ...form, permalink, boards: await boardsOf(caller) }) });
    } catch (err) {
      log.info({ err: (err as Error).message }, 'the card form was not updated (submitted or closed meanwhile?)');
    }
  });

  app.view<ViewSubmitAction>(CREATE_CARD_CALLBACK, async ({ ack, body, view, client }) => {
    const user = body.user.id;
    const log = deps.log.child({ slack_view: CREATE_CARD_CALLBACK, slack_user: user });
    const caller = await slackCaller(deps, client, user, log);
    if (!caller) {
      await ack({ response_action: 'errors', errors: cardModalErrors([], howToLinkShort(user)) });
      return;
    }
    const form = readCardModal(view.state.values);
    const assignees = await assigneeMembers(deps, client, form.slackUsers, log);
    if ('unknown' in assignees) {
      await ack({ response_action: 'errors', errors: { assignee_ids: `<@${assignees.unknown}> has no tack member; link them first (/tack connect).` } });
      return;
    }
    let reply: SlackReply;
    try {
      const input = {
        ...form.input,
        ...(form.description !== undefined ? { description: form.description } : {}),
        ...(assignees.ids.length > 0 ? { assignee_ids: assignees.ids } : {}),
      } as ArgsOf<'createCard'>;
      const card = await caller.call('createCard', input);
      const appUrl = deps.runtime.appUrl ?? deps.config.appUrl;
      reply = cardCreatedView(card, `${appUrl.replace(/\/+$/, '')}/cards/${encodeURIComponent(card.ref)}`);
    } catch (err) {
      if (!(err instanceof AppError)) log.error({ error: briefError(err) }, 'creating a card from the modal failed');
      const errors = err instanceof AppError ? cardModalErrors(err.fields ?? [], err.userMessage) : cardModalErrors([], 'Something went wrong on our side; try again in a moment.');
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    const metadata = readCardModalMetadata(view.private_metadata);
    if (metadata.response_url) await postToResponseUrl(metadata.response_url, reply, log);
  });
}
