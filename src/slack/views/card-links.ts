import type { types } from '@slack/bolt';
import type { OperationOutput } from '../../operations/index.js';
import { context, CONTEXT_TEXT_MAX, escapeText, link } from './blocks.js';

/** A card's pull requests, as `listCardLinks` answers them. */
export type CardLinksView = OperationOutput<'listCardLinks'>['data'];

const STATE_LABELS = { open: 'open', draft: 'draft', merged: 'merged', closed: 'closed' } as const;
// A card's links in a message: the latest few, then how many more.
const SHOWN = 5;

/**
 * The pull requests that name a card, one context block (`/card`, unfurls): each a link with
 * its state, most recently updated first. No block when there are none. Only whole lines: a
 * context text is clipped at CONTEXT_TEXT_MAX, which would cut a link open (five links to long
 * repositories with 256-character titles pass it), so lines that do not fit are counted in
 * the last line with the ones past SHOWN.
 */
export function cardLinksBlocks(links: CardLinksView): types.KnownBlock[] {
  if (links.length === 0) return [];
  const more = (n: number) => `…and ${n} more.`;
  const lines: string[] = [];
  for (const l of links.slice(0, SHOWN)) {
    const line = `:twisted_rightwards_arrows: ${link(l.url, `${l.repository}#${l.number} ${l.title}`)} · ${escapeText(STATE_LABELS[l.state])}`;
    const rest = links.length - lines.length - 1;
    const candidate = [...lines, line, ...(rest > 0 ? [more(rest)] : [])].join('\n');
    if (candidate.length > CONTEXT_TEXT_MAX) break;
    lines.push(line);
  }
  if (links.length > lines.length) lines.push(more(links.length - lines.length));
  return [context(lines.join('\n'))];
}

/** A reply or unfurl with the card's pull requests added at its end. */
export function withCardLinks<T extends { blocks?: types.KnownBlock[] }>(view: T, links: CardLinksView): T {
  const extra = cardLinksBlocks(links);
  return extra.length === 0 ? view : { ...view, blocks: [...(view.blocks ?? []), ...extra] };
}
