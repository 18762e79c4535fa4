import type { types } from '@slack/bolt';
import type { SlackReply } from '../command-context.js';

/**
 * The Block Kit pieces every view is built from, and Slack's published limits they keep to
 * (Block Kit reference): at most 50 blocks in a message and 100 in a modal or Home tab; a
 * section's text at most 3000 characters, a field 2000, a header 150, a button's text 75,
 * an option's text 75, a modal's title 24. Every view stays inside them, and a list or body
 * cut short says how much it left out.
 */
export const MAX_BLOCKS = 50;
export const MAX_VIEW_BLOCKS = 100;
export const SECTION_TEXT_MAX = 3000;
export const FIELD_TEXT_MAX = 2000;
export const HEADER_TEXT_MAX = 150;
export const BUTTON_TEXT_MAX = 75;
export const OPTION_TEXT_MAX = 75;
export const CONTEXT_TEXT_MAX = 2000;
// The fallback `text` is what notifications show; no longer than a section.
const MESSAGE_TEXT_MAX = 3000;
/**
 * What the texts of a message's blocks may add up to. Slack refuses a chat.postMessage whose
 * blocks' text passes about 12,000 characters (`msg_blocks_too_long`), a limit it does not
 * document (slackapi/bolt-js#2509, #2867; one report at 11,341): a list stops well before.
 */
export const BLOCKS_TEXT_BUDGET = 10_000;
/** A link's markup longer than this is not made (its words stand alone): cut by a text's limit, it would show as broken text. */
const LINK_MARKUP_MAX = 700;
/** A link's words are cut to this many characters (escaped): a 5,000-character title is no link text. */
const LINK_TEXT_MAX = 300;

/** The characters of every text in `blocks` (section and context texts, button labels…), added up. */
export function blocksTextLength(blocks: unknown): number {
  if (Array.isArray(blocks)) return blocks.reduce((n: number, b) => n + blocksTextLength(b), 0);
  if (blocks === null || typeof blocks !== 'object') return 0;
  let n = 0;
  for (const [key, value] of Object.entries(blocks)) n += key === 'text' && typeof value === 'string' ? value.length : blocksTextLength(value);
  return n;
}

/**
 * Appends each item's blocks to `blocks`, in order, while all their texts stay within
 * BLOCKS_TEXT_BUDGET (`reserve` kept for what comes after, such as an "and N more" line);
 * returns how many items fit.
 */
export function appendWithinBudget<T>(blocks: types.KnownBlock[], items: readonly T[], render: (item: T) => types.KnownBlock[], reserve = 300): number {
  let used = blocksTextLength(blocks) + reserve;
  let fitted = 0;
  for (const item of items) {
    const own = render(item);
    const size = blocksTextLength(own);
    if (used + size > BLOCKS_TEXT_BUDGET) break;
    blocks.push(...own);
    used += size;
    fitted += 1;
  }
  return fitted;
}

/** Text a user typed, made safe for mrkdwn: Slack's control characters are &, < and >. */
export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Look-alikes of the characters that open and close mrkdwn's formatting. Slack's mrkdwn has
 * no escape for `*`, `~` and `` ` `` (only &, < and > are escaped), so a title such as
 * `a*b` inside `*…*` ends the bold early and leaves the rest as stray markup. Inside
 * formatting, these characters are shown by look-alikes that Slack does not read as markup
 * (the notification `text`, which is never formatted, keeps the original ones).
 */
const FORMATTING_LOOKALIKES: Record<string, string> = { '*': '\u2217', '~': '\u223c', '`': '\u02cb' };

/** Text a user typed, made safe to stand inside mrkdwn formatting: escaped, and no formatting character of its own. */
export function formattingSafe(text: string): string {
  return escapeText(text).replace(/[*~`]/g, (c) => FORMATTING_LOOKALIKES[c]!);
}

/** `*text*`: user text in bold that stays bold whatever it holds. */
export function bold(text: string): string {
  return `*${formattingSafe(text)}*`;
}

/** `~text~`: user text struck through, whatever it holds. */
export function struck(text: string): string {
  return `~${formattingSafe(text)}~`;
}

/** `` `text` ``: user text as inline code, whatever it holds. */
export function inlineCode(text: string): string {
  return `\`${formattingSafe(text)}\``;
}

/**
 * What a person typed, from text Slack sends escaped (a slash command's text, a message's):
 * Slack's clients write &, < and > as `&amp;`, `&lt;` and `&gt;`. `&amp;` last, so that a
 * typed `&lt;` (sent as `&amp;lt;`) stays `&lt;`.
 */
export function unescapeText(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** At most `max` characters, ending in … when cut; never half an escape (`&am`) or half a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  cut = cut.replace(/&[a-z]{0,3}$/, '');
  return `${cut}…`;
}

/** Plain text (Slack shows it as typed, so nothing is escaped), cut to `max`. */
export function plain(text: string, max = HEADER_TEXT_MAX): types.PlainTextElement {
  return { type: 'plain_text', text: clip(text, max), emoji: true };
}

export function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): types.Button {
  return { type: 'button', text: plain(text, BUTTON_TEXT_MAX), action_id: actionId, value, ...(style ? { style } : {}) };
}

export function mrkdwn(text: string, max = SECTION_TEXT_MAX): types.MrkdwnElement {
  return { type: 'mrkdwn', text: clip(text, max) };
}

export function field(text: string): types.MrkdwnElement {
  return mrkdwn(text, FIELD_TEXT_MAX);
}

export function section(text: string, blockId?: string): types.SectionBlock {
  return { type: 'section', ...(blockId ? { block_id: blockId } : {}), text: mrkdwn(text) };
}

export function context(text: string, blockId?: string): types.ContextBlock {
  return { type: 'context', ...(blockId ? { block_id: blockId } : {}), elements: [mrkdwn(text, CONTEXT_TEXT_MAX)] };
}

export function header(text: string): types.HeaderBlock {
  return { type: 'header', text: plain(text) };
}

export function option(text: string, value: string): types.PlainTextOption {
  return { text: plain(text, OPTION_TEXT_MAX), value };
}

/**
 * A message: `text` is its fallback (notifications, screen readers), which Slack reads as
 * mrkdwn too, so it is given as plain words and escaped here: a milestone named
 * `<!channel>` never pings anyone. Blocks escape what users wrote where they build mrkdwn.
 */
export function message(text: string, blocks?: types.KnownBlock[]): SlackReply {
  const short = clip(escapeText(text), MESSAGE_TEXT_MAX);
  return blocks ? { text: short, blocks: blocks.slice(0, MAX_BLOCKS) } : { text: short };
}

export function ephemeral(text: string, blocks?: types.KnownBlock[]): SlackReply {
  return { response_type: 'ephemeral', ...message(text, blocks) };
}

/** A plain ephemeral message (usage, errors, how to link); any `<`, `>` or `&` in it shows as is. */
export function messageView(text: string): SlackReply {
  return ephemeral(text);
}

export function ratio(done: number | undefined, total: number | undefined): string {
  return `${done ?? 0} / ${total ?? 0}`;
}

/** How many a list left out: exact, or "N+" when the page it came from was itself cut. */
export function moreLine(left: number, truncated: boolean): string {
  return `…and ${left}${truncated ? '+' : ''} more.`;
}

/**
 * A mrkdwn link `<url|text>`. The URL may come from a person too (a todo's `source_url`):
 * its `<`, `>` and `|` are percent-encoded and `&` escaped, so neither part can end the link
 * early or start a mention; the text is escaped, its `|` shown as `¦`.
 */
export function link(url: string, text: string): string {
  const safeUrl = url.replace(/[<>|\s]/g, (ch) => encodeURIComponent(ch)).replace(/&/g, '&amp;');
  const words = clip(escapeText(text).replace(/\|/g, '¦'), LINK_TEXT_MAX);
  // Whole or not at all: a text's limit (a section's 3,000) must never cut a link open.
  if (safeUrl.length + words.length + 3 > LINK_MARKUP_MAX) return words;
  return `<${safeUrl}|${words}>`;
}
