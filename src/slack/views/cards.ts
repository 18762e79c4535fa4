import type { types } from '@slack/bolt';
import { WORKFLOW_STATUSES } from '../../vocabulary.js';
import type { OperationOutput } from '../../operations/index.js';
import type { SlackReply } from '../command-context.js';
import { mentionsAsNames } from '../../domain/mentions.js';
import { bold, clip, context, ephemeral, escapeText, field, formattingSafe, option, ratio, SECTION_TEXT_MAX, section } from './blocks.js';

/** A card as `getCard` and `moveCard` answer it. */
export type CardView = OperationOutput<'getCard'>;
export type WorkflowStatus = CardView['workflow_status'];


/** The action id of `/card`'s status select; the card id is in its block id (`card:<id>`). */
export const CARD_MOVE_ACTION = 'card_move';
export const CARD_BLOCK_PREFIX = 'card:';

const STATUS_LABELS: Record<WorkflowStatus, string> = {
  backlog: 'Backlog',
  in_progress: 'In progress',
  in_review: 'In review',
  done: 'Done',
};

export function statusLabel(status: string): string {
  return STATUS_LABELS[status as WorkflowStatus] ?? status;
}

export function isWorkflowStatus(value: string): value is WorkflowStatus {
  return (WORKFLOW_STATUSES as readonly string[]).includes(value);
}

/** The card's fields, the same ones for `/card`, Home and unfurls. */
export function cardFields(c: CardView): types.MrkdwnElement[] {
  const fields: types.MrkdwnElement[] = [field(`*Status*\n${statusLabel(c.workflow_status)}`)];
  if (c.criteria_total !== undefined) fields.push(field(`*Criteria done*\n${ratio(c.criteria_done, c.criteria_total)}`));
  if (c.due_on) fields.push(field(`*Due*\n${c.due_on}`));
  if (c.gated) fields.push(field('*Gated*\nhumans move it to done'));
  return fields;
}

export interface CardViewOptions {
  /** A line above the card (what a move did, or why it was refused). */
  note?: string;
  /** How many comments the card has (`/card` shows it); absent: not shown. */
  comments?: number;
  /** The status select that moves the card (the `/card` answer); off for read-only views. */
  select?: boolean;
  /** The names of the members the description mentions (`@mem_…` shows as `@Name`); absent: ids as stored. */
  names?: ReadonlyMap<string, string>;
}

/** The status select of a card, set to its current status. */
function statusSelect(c: CardView): types.ActionsBlock {
  const options = WORKFLOW_STATUSES.map((s) => option(statusLabel(s), s));
  return {
    type: 'actions',
    block_id: `${CARD_BLOCK_PREFIX}${c.id}`,
    elements: [
      {
        type: 'static_select',
        action_id: CARD_MOVE_ACTION,
        placeholder: { type: 'plain_text', text: 'Move to…' },
        options,
        initial_option: options.find((o) => o.value === c.workflow_status)!,
      },
    ],
  };
}

/** Lines of a description shown in Slack; the web app shows the whole of it. */
const DESCRIPTION_LINES = 5;
const DESCRIPTION_MAX = 600;

/**
 * The first lines of a card's Markdown description as plain text for mrkdwn: Markdown's
 * markup is not Slack's, so none of it is read (formatting characters become look-alikes, &,
 * < and > are escaped: no mention, link or formatting comes from user text), cut to a few
 * lines, and saying when it was cut.
 */
export function descriptionPreview(description: string): string {
  const lines = description.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const shown = lines.slice(0, DESCRIPTION_LINES).join('\n');
  const cut = lines.length > DESCRIPTION_LINES || shown.length > DESCRIPTION_MAX;
  const text = formattingSafe(shown.length > DESCRIPTION_MAX ? shown.slice(0, DESCRIPTION_MAX) : shown);
  return clip(cut ? `${text.replace(/\s+$/, '')}…` : text, SECTION_TEXT_MAX);
}

export function cardView(c: CardView, options: CardViewOptions = {}): SlackReply {
  const { note, select = true, comments, names } = options;
  const blocks: types.KnownBlock[] = [];
  if (note) blocks.push(context(escapeText(note)));
  blocks.push(section(`${bold(c.ref)} ${escapeText(c.title)}`));
  if (c.description) blocks.push(section(descriptionPreview(names ? mentionsAsNames(c.description, names) : c.description)));
  blocks.push({ type: 'section', fields: cardFields(c) });
  if (comments !== undefined) blocks.push(context(comments === 1 ? '1 comment' : `${comments} comments`));
  if (select) blocks.push(statusSelect(c));
  return ephemeral(`${note ? `${note} ` : ''}${c.ref} ${c.title} (${statusLabel(c.workflow_status)})`, blocks);
}

export function cardMovedView(c: CardView, names?: ReadonlyMap<string, string>): SlackReply {
  return cardView(c, { note: `Moved ${c.ref} to ${statusLabel(c.workflow_status)}.`, ...(names && { names }) });
}
