import type { types } from '@slack/bolt';
import { context, escapeText, link, section } from './blocks.js';
import { cardFields, type CardView } from './cards.js';
import { milestoneFields, type MilestoneView } from './milestones.js';
import { snippetMeta, type SnippetView } from './snippets.js';

/**
 * What a link to the web app shows under it in Slack (chat.unfurl): the thing's current
 * state, never more than a channel may read. A snippet shows its name and facts, not its
 * body (a link posted in a channel is read by everyone in it).
 */
export type Unfurl = { blocks: types.KnownBlock[] };

export function cardUnfurl(url: string, c: CardView): Unfurl {
  return { blocks: [section(`:card_index: ${link(url, `${c.ref} ${c.title}`)}`), { type: 'section', fields: cardFields(c) }] };
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
