import type { types } from '@slack/bolt';
import { button, context, escapeText, link, option, plain, section } from './blocks.js';
import { cardFields, statusLabel, type CardView } from './cards.js';
import { milestoneFields, type MilestoneView } from './milestones.js';
import { snippetMeta, type SnippetView } from './snippets.js';

/**
 * What a link to the web app shows under it in Slack (chat.unfurl): the thing's current
 * state, never more than a channel may read. A snippet shows its name and facts, not its
 * body (a link posted in a channel is read by everyone in it).
 */
export type Unfurl = { blocks: types.KnownBlock[] };

/** The action ids of a card unfurl's controls; the card id is in their block id (`unfurl:<id>`). */
export const UNFURL_MOVE_ACTION = 'unfurl_card_move';
export const UNFURL_ASSIGN_ACTION = 'unfurl_card_assign_me';
export const UNFURL_BLOCK_PREFIX = 'unfurl:';

/**
 * A card's unfurl: its state, and (given the statuses the reader may move it to, from
 * listCardMoves) a status select and an Assign to me button, which act as whoever clicks.
 */
export function cardUnfurl(url: string, c: CardView, moves?: readonly string[]): Unfurl {
  const blocks: types.KnownBlock[] = [section(`:card_index: ${link(url, `${c.ref} ${c.title}`)}`), { type: 'section', fields: cardFields(c) }];
  if (moves) {
    const options = moves.map((s) => option(statusLabel(s), s));
    const current = options.find((o) => o.value === c.workflow_status);
    const elements: types.ActionsBlockElement[] = [];
    if (options.length > 0) {
      elements.push({ type: 'static_select', action_id: UNFURL_MOVE_ACTION, placeholder: plain('Move to…'), options, ...(current ? { initial_option: current } : {}) });
    }
    elements.push(button('Assign to me', UNFURL_ASSIGN_ACTION, c.id));
    blocks.push({ type: 'actions', block_id: `${UNFURL_BLOCK_PREFIX}${c.id}`, elements });
  }
  return { blocks };
}

export function milestoneUnfurl(url: string, m: MilestoneView): Unfurl {
  return { blocks: [section(`:triangular_flag_on_post: ${link(url, `${m.ref} ${m.name}`)}`), { type: 'section', fields: milestoneFields(m) }] };
}

export function snippetUnfurl(url: string, s: SnippetView): Unfurl {
  const lines = s.body === '' ? 0 : s.body.split('\n').length;
  return {
    blocks: [
      section(`:page_facing_up: ${link(url, s.name)}`),
      context(`${snippetMeta(s)} · ${lines} line${lines === 1 ? '' : 's'}${s.updated_at ? ` · updated ${escapeText(s.updated_at.slice(0, 10))}` : ''}`),
    ],
  };
}
