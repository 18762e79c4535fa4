import type { types } from '@slack/bolt';
import { WORKFLOW_STATUSES } from '../../vocabulary.js';
import type { SlackReply } from '../command-context.js';
import { clip, context, escapeText, link, message, option, plain, section, unescapeText } from './blocks.js';
import { statusLabel } from './cards.js';
import { TITLE_MAX, titleFromMessage } from './todo-modal.js';

/** The callback id of the message shortcut (manifest.yml) and of the modal it opens. */
export const CREATE_CARD_CALLBACK = 'create_card';

/** The input blocks, named as createCard's fields, so its field errors land on them. */
export const CARD_MODAL_FIELDS = ['board', 'title', 'description', 'assignee_ids', 'workflow_status'] as const;

// Slack's limits: a modal's title, submit and close texts 24 characters; a plain_text_input's
// value 3,000 (a card's description may hold 20,000: the modal offers what Slack can carry).
const MODAL_TEXT_MAX = 24;
export const DESCRIPTION_INPUT_MAX = 3000;
const MAX_OPTIONS = 100;

export interface CardModalOptions {
  /** The message's text (Slack's markup). */
  text?: string;
  /** The message's permalink, once Slack gave it. */
  permalink?: string;
  /** Where to say the card was made (the shortcut's response_url). */
  response_url?: string;
  /** The boards to choose from; undefined while they are being read. */
  boards?: readonly { slug: string; name: string }[];
}

/** The description a message gives: its text as people read it, then its permalink (contract §11). */
export function descriptionFromMessage(text: string | undefined, permalink: string | undefined): string {
  const body = unescapeText((text ?? '').replace(/<([^|>]+)\|([^>]*)>/g, '$2 ($1)').replace(/<([@#!])([^|>]*)>/g, '$1$2').replace(/<([^>]+)>/g, '$1')).trim();
  const tail = permalink ? `\n\nFrom Slack: ${permalink}` : '';
  return clip(body, DESCRIPTION_INPUT_MAX - tail.length) + tail;
}

/** The modal of the `create_card` shortcut. */
export function cardModalView(o: CardModalOptions): types.ModalView {
  const statuses = WORKFLOW_STATUSES.map((s) => option(statusLabel(s), s));
  const blocks: types.KnownBlock[] = [];
  if (o.boards === undefined) blocks.push(context('Reading your boards…'));
  else if (o.boards.length === 0) blocks.push(section('There is no board yet: create one in the web app first.'));
  else {
    const boards = o.boards.slice(0, MAX_OPTIONS).map((b) => option(`${b.name} (${b.slug})`, b.slug));
    blocks.push({
      type: 'input',
      block_id: 'board',
      label: plain('Board'),
      element: { type: 'static_select', action_id: 'board', options: boards, ...(boards.length === 1 ? { initial_option: boards[0]! } : {}) },
    });
  }
  const title = titleFromMessage(o.text);
  blocks.push(
    {
      type: 'input',
      block_id: 'title',
      label: plain('Title'),
      element: { type: 'plain_text_input', action_id: 'title', max_length: TITLE_MAX, ...(title ? { initial_value: title } : {}) },
    },
    {
      type: 'input',
      block_id: 'description',
      optional: true,
      label: plain('Description'),
      element: {
        type: 'plain_text_input',
        action_id: 'description',
        multiline: true,
        max_length: DESCRIPTION_INPUT_MAX,
        ...(o.text || o.permalink ? { initial_value: descriptionFromMessage(o.text, o.permalink) } : {}),
      },
    },
    { type: 'input', block_id: 'assignee_ids', optional: true, label: plain('Assignees'), element: { type: 'multi_users_select', action_id: 'assignee_ids', max_selected_items: 20 } },
    {
      type: 'input',
      block_id: 'workflow_status',
      label: plain('Status'),
      element: { type: 'static_select', action_id: 'workflow_status', options: statuses, initial_option: statuses[0]! },
    },
  );
  if (o.permalink) blocks.push(context(`From ${link(o.permalink, 'this message')}`));
  const metadata = JSON.stringify(o.response_url && o.response_url.length < 2900 ? { response_url: o.response_url } : {});
  return {
    type: 'modal',
    callback_id: CREATE_CARD_CALLBACK,
    title: plain('New card', MODAL_TEXT_MAX),
    ...(o.boards && o.boards.length > 0 ? { submit: plain('Create card', MODAL_TEXT_MAX) } : {}),
    close: plain('Cancel', MODAL_TEXT_MAX),
    private_metadata: metadata,
    blocks,
  };
}

export function readCardModalMetadata(raw: string | undefined): { response_url?: string } {
  try {
    const value = JSON.parse(raw ?? '{}') as Record<string, unknown>;
    return typeof value.response_url === 'string' ? { response_url: value.response_url } : {};
  } catch {
    return {};
  }
}

type StateValues = Record<string, Record<string, { value?: string | null; selected_users?: string[] | null; selected_option?: { value?: string } | null }>>;

/** What the person entered, as entered (createCard's schema checks it); assignees as Slack user ids. */
export function readCardModal(values: StateValues): { input: Record<string, unknown>; description?: string; slackUsers: string[] } {
  const input: Record<string, unknown> = {};
  const board = values.board?.board?.selected_option?.value;
  if (typeof board === 'string') input.board = board;
  const title = values.title?.title?.value;
  if (typeof title === 'string') input.title = title;
  const status = values.workflow_status?.workflow_status?.selected_option?.value;
  if (typeof status === 'string') input.workflow_status = status;
  const description = values.description?.description?.value;
  return {
    input,
    ...(typeof description === 'string' && description.trim() !== '' ? { description } : {}),
    slackUsers: values.assignee_ids?.assignee_ids?.selected_users ?? [],
  };
}

/** What the member is told where they used the shortcut. */
export function cardCreatedView(c: { ref: string; title: string }, url: string | undefined): SlackReply {
  const name = `${c.ref} ${c.title}`;
  return { response_type: 'ephemeral', ...message(`Created ${name}`, [section(`:card_index: Created ${url ? link(url, name) : escapeText(clip(name, 300))}`)]) };
}
