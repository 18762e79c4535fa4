import type { types } from '@slack/bolt';
import type { OperationOutput } from '../../operations/index.js';
import type { SlackReply } from '../command-context.js';
import { context, ephemeral, escapeText, header, inlineCode, SECTION_TEXT_MAX, section } from './blocks.js';

/** A snippet as `getSnippet` answers it. */
export type SnippetView = OperationOutput<'getSnippet'>;

export interface FittedBody {
  shown: string;
  /** Lines after the cut (the one cut through counts). */
  moreLines: number;
  moreChars: number;
}

/**
 * The longest start of `body` that takes at most `max` characters once escaped, cut at a
 * line end when one falls in its second half; with how much it left out.
 */
export function fitBody(body: string, max: number): FittedBody {
  let used = 0;
  let end = 0;
  while (end < body.length) {
    const ch = body[end]!;
    const cost = ch === '&' ? 5 : ch === '<' || ch === '>' ? 4 : 1;
    if (used + cost > max) break;
    used += cost;
    end += 1;
  }
  if (end >= body.length) return { shown: body, moreLines: 0, moreChars: 0 };
  const lineEnd = body.lastIndexOf('\n', end);
  if (lineEnd > end / 2) end = lineEnd;
  else if (/[\ud800-\udbff]/.test(body[end - 1] ?? '')) end -= 1;
  const rest = body.slice(end).replace(/^\n/, '');
  return { shown: body.slice(0, end), moreLines: rest.split('\n').length, moreChars: rest.length };
}

/** Name, type and version, the body in a code block (cut to fit one section), and the public link. */
export function snippetView(s: SnippetView): SlackReply {
  // A body's own ``` would end the code block early.
  const body = s.body.replace(/```/g, "'''");
  // The fences and their newlines take 8 of the section's characters.
  const { shown, moreLines, moreChars } = fitBody(body, SECTION_TEXT_MAX - 8);
  const blocks: types.KnownBlock[] = [
    header(s.name),
    context(snippetMeta(s)),
    section(`\`\`\`\n${escapeText(shown)}\n\`\`\``),
  ];
  if (moreChars > 0) {
    const more = moreLines > 1 ? `${moreLines} more lines` : `${moreChars} more characters`;
    blocks.push(context(`…and ${more}${s.public_url ? ', in full at the public link' : ''}.`));
  }
  if (s.public_url) blocks.push(context(`<${s.public_url}|Public link>`));
  return ephemeral(`${s.name} (${s.slug}, v${s.version})`, blocks);
}

/** Slug, type, version, category and tags: one context line. */
export function snippetMeta(s: SnippetView): string {
  const parts = [escapeText(s.type), `v${s.version}`, s.category ? escapeText(s.category) : '', ...(s.tags ?? []).map((t) => `#${escapeText(t)}`)];
  return `${inlineCode(s.slug)} · ${parts.filter(Boolean).join(' · ')}`;
}
