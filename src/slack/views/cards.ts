import type { types } from '@slack/bolt';
import { WORKFLOW_STATUSES } from '../../vocabulary.js';
import type { OperationOutput } from '../../operations/index.js';
import type { SlackReply } from '../command-context.js';
import { bold, context, ephemeral, escapeText, field, option, ratio, section } from './blocks.js';

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
  /** The status select that moves the card (the `/card` answer); off for read-only views. */
  select?: boolean;
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

export function cardView(c: CardView, options: CardViewOptions = {}): SlackReply {
  const { note, select = true } = options;
  const blocks: types.KnownBlock[] = [];
  if (note) blocks.push(context(escapeText(note)));
  blocks.push(section(`${bold(c.ref)} ${escapeText(c.title)}`), { type: 'section', fields: cardFields(c) });
  if (select) blocks.push(statusSelect(c));
  return ephemeral(`${note ? `${note} ` : ''}${c.ref} ${c.title} (${statusLabel(c.workflow_status)})`, blocks);
}

export function cardMovedView(c: CardView): SlackReply {
  return cardView(c, { note: `Moved ${c.ref} to ${statusLabel(c.workflow_status)}.` });
}
