import type { types } from '@slack/bolt';
import type { OperationOutput } from '../../operations/index.js';
import { context, escapeText, link } from './blocks.js';

/** A card's pull requests, as `listCardLinks` answers them. */
export type CardLinksView = OperationOutput<'listCardLinks'>['data'];

const STATE_LABELS = { open: 'open', draft: 'draft', merged: 'merged', closed: 'closed' } as const;
// A card's links in a message: the latest few, then how many more.
const SHOWN = 5;

/**
 * The pull requests that name a card, one context block (`/card`, unfurls): each a link with
 * its state, most recently updated first. No block when there are none.
 */
export function cardLinksBlocks(links: CardLinksView): types.KnownBlock[] {
  if (links.length === 0) return [];
  const lines = links.slice(0, SHOWN).map((l) => `:twisted_rightwards_arrows: ${link(l.url, `${l.repository}#${l.number} ${l.title}`)} · ${escapeText(STATE_LABELS[l.state])}`);
  if (links.length > SHOWN) lines.push(`…and ${links.length - SHOWN} more.`);
  return [context(lines.join('\n'))];
}

/** A reply or unfurl with the card's pull requests added at its end. */
export function withCardLinks<T extends { blocks?: types.KnownBlock[] }>(view: T, links: CardLinksView): T {
  const extra = cardLinksBlocks(links);
  return extra.length === 0 ? view : { ...view, blocks: [...(view.blocks ?? []), ...extra] };
}
