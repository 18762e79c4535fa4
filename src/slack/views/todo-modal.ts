import type { types } from '@slack/bolt';
import { PRIORITIES } from '../../vocabulary.js';
import type { SlackFailure } from '../slack-errors.js';
import type { SlackReply } from '../command-context.js';
import { clip, context, escapeText, link, messageView, option, plain, section, unescapeText } from './blocks.js';

/** The callback id of the message shortcut (manifest.yml) and of the modal it opens. */
export const CREATE_TODO_CALLBACK = 'create_todo';

/** The input blocks, named as createTodo's fields, so its field errors land on them. */
export const TODO_MODAL_FIELDS = ['title', 'due_on', 'priority'] as const;
export type TodoModalField = (typeof TODO_MODAL_FIELDS)[number];

/** A todo's title limit (createTodo's `title`). */
export const TITLE_MAX = 300;
// Slack's limits: a modal's title, submit and close texts at most 24 characters; private_metadata 3000.
const MODAL_TEXT_MAX = 24;
export const PRIVATE_METADATA_MAX = 3000;

/** What the modal carries to its submission (private_metadata). */
export interface TodoModalMetadata {
  /** The permalink of the message the shortcut was used on. */
  source_url?: string;
  /** Where to say the todo was added (the shortcut's or the command's response_url). */
  response_url?: string;
}

export interface TodoModalOptions extends TodoModalMetadata {
  title?: string;
}

/**
 * A message's text as a one-line title: Slack's markup read back to what people see
 * (`<@U1>` as @U1, `<url|label>` as label, `&lt;` as <), whitespace folded, cut to the
 * title's limit.
 */
export function titleFromMessage(text: string | undefined): string {
  const seen = (text ?? '')
    .replace(/<([@#!])([^|>]*)(?:\|([^>]*))?>/g, (_m, sigil: string, id: string, label?: string) => (label ? `${sigil === '#' ? '#' : '@'}${label}` : `${sigil === '!' ? '@' : sigil}${id}`))
    .replace(/<([^|>]+)\|([^>]*)>/g, '$2')
    .replace(/<([^>]+)>/g, '$1');
  return clip(unescapeText(seen).replace(/\s+/g, ' ').trim(), TITLE_MAX);
}

/** The modal of the `create_todo` shortcut and of `/todo add` without text. */
export function todoModalView(options: TodoModalOptions): types.ModalView {
  const metadata: TodoModalMetadata = {};
  if (options.source_url) metadata.source_url = options.source_url;
  if (options.response_url) metadata.response_url = options.response_url;
  let privateMetadata = JSON.stringify(metadata);
  // A permalink too long to carry is dropped rather than cut (a cut link would be wrong).
  if (privateMetadata.length > PRIVATE_METADATA_MAX) privateMetadata = JSON.stringify({ response_url: metadata.response_url });
  const priorities = PRIORITIES.map((p) => option(p[0]!.toUpperCase() + p.slice(1), p));
  const blocks: types.KnownBlock[] = [
    {
      type: 'input',
      block_id: 'title',
      label: plain('Title'),
      element: {
        type: 'plain_text_input',
        action_id: 'title',
        max_length: TITLE_MAX,
        ...(options.title ? { initial_value: clip(options.title, TITLE_MAX) } : {}),
        placeholder: plain('What needs doing?'),
      },
    },
    { type: 'input', block_id: 'due_on', optional: true, label: plain('Due'), element: { type: 'datepicker', action_id: 'due_on' } },
    {
      type: 'input',
      block_id: 'priority',
      label: plain('Priority'),
      element: { type: 'static_select', action_id: 'priority', options: priorities, initial_option: priorities.find((o) => o.value === 'medium')! },
    },
  ];
  if (metadata.source_url && privateMetadata.includes('source_url')) blocks.push(context(`From ${link(metadata.source_url, 'this message')}`));
  return {
    type: 'modal',
    callback_id: CREATE_TODO_CALLBACK,
    title: plain('New todo', MODAL_TEXT_MAX),
    submit: plain('Add todo', MODAL_TEXT_MAX),
    close: plain('Cancel', MODAL_TEXT_MAX),
    private_metadata: privateMetadata,
    blocks,
  };
}

/** Reads the modal's metadata back; anything unexpected is left out. */
export function readTodoModalMetadata(raw: string | undefined): TodoModalMetadata {
  try {
    const value = JSON.parse(raw ?? '{}') as Record<string, unknown>;
    const out: TodoModalMetadata = {};
    if (typeof value.source_url === 'string') out.source_url = value.source_url;
    if (typeof value.response_url === 'string') out.response_url = value.response_url;
    return out;
  } catch {
    return {};
  }
}

type StateValues = Record<string, Record<string, { value?: string | null; selected_date?: string | null; selected_option?: { value?: string } | null }>>;

/** createTodo's input from a submitted modal: what the person entered, as entered (the operation validates it). */
export function readTodoModal(values: StateValues, metadata: TodoModalMetadata): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const title = values.title?.title?.value;
  if (typeof title === 'string') input.title = title;
  const due = values.due_on?.due_on?.selected_date;
  if (typeof due === 'string' && due !== '') input.due_on = due;
  const priority = values.priority?.priority?.selected_option?.value;
  if (typeof priority === 'string') input.priority = priority;
  if (metadata.source_url) input.source_url = metadata.source_url;
  return input;
}

/** "must not be empty" as "Must not be empty." */
function sentence(text: string): string {
  if (text === '') return 'Not valid.';
  const s = `${text[0]!.toUpperCase()}${text.slice(1)}`;
  return s.endsWith('.') ? s : `${s}.`;
}

// Slack shows an input's error under it; keep it to a line or two.
const ERROR_TEXT_MAX = 150;

/**
 * The `response_action: errors` answer for a refused submission: each field error of the
 * operation under its input, and anything else (another field, a refusal without fields)
 * under the title.
 */
export function modalErrors(fields: readonly { field: string; message: string }[], general?: string): Record<string, string> {
  const errors: Record<string, string> = {};
  const add = (block: string, text: string) => {
    errors[block] = clip(errors[block] ? `${errors[block]} ${text}` : text, ERROR_TEXT_MAX);
  };
  for (const f of fields) {
    // A field error is a sentence naming its field ("title must not be empty."); under its own input the name goes.
    const own = f.message.startsWith(`${f.field} `) ? f.message.slice(f.field.length + 1) : f.message;
    if ((TODO_MODAL_FIELDS as readonly string[]).includes(f.field)) add(f.field, sentence(own));
    else add('title', f.message);
  }
  if (general && Object.keys(errors).length === 0) add('title', general);
  return errors;
}

/**
 * The todo modal of a Slack user with no tack member, put in place of the form once that is
 * known (the form opens first: its trigger_id lives 3 seconds, and finding out may take a
 * users.info call); nothing to submit.
 */
export function notLinkedModalView(howToLink: string): types.ModalView {
  return {
    type: 'modal',
    callback_id: CREATE_TODO_CALLBACK,
    title: plain('New todo', MODAL_TEXT_MAX),
    close: plain('Close', MODAL_TEXT_MAX),
    blocks: [section(escapeText(howToLink))],
  };
}

const ONE_LINE = 'or add it in one line: `/todo add <title> due:tomorrow !high`.';

/** What the person is told when Slack did not open the form (an expired trigger, a rate limit). */
export function formNotOpenedView(failure: SlackFailure): SlackReply {
  if (failure.kind === 'rate_limited') return messageView(`Slack is busy and did not open the form. Try again in a minute, ${ONE_LINE}`);
  if (failure.error === 'expired_trigger_id' || failure.error === 'exchanged_trigger_id') {
    return messageView(`Slack did not open the form: it came too late (${failure.error}). Try again, ${ONE_LINE}`);
  }
  return messageView(`Slack did not open the form (${failure.error}). Try again, ${ONE_LINE}`);
}
