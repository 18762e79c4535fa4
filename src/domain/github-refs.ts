/**
 * Which cards a pull request names (contract §12). A ref matches, whatever its case, where no
 * letter or digit stands right before it and no digit right after (`feature/ENG-42`,
 * `eng-42-fix`, `(ENG-42)`; not `XENG-42`, not `ENG-421`). Which board a prefix is, and in
 * which organization, is the database's to say: `XENG-42` is a ref of board XENG, never ENG.
 */

/** Words that make the ref right after them a closing reference. */
export const CLOSING_WORDS = ['close', 'closes', 'closed', 'fix', 'fixes', 'fixed', 'resolve', 'resolves', 'resolved', 'complete', 'completes'] as const;

// The prefix as boards allow it ([A-Z][A-Z0-9]{0,9}, any case here), a number with no leading zero.
const REF = /(?<![A-Za-z0-9])([A-Za-z][A-Za-z0-9]{0,9})-([1-9][0-9]{0,8})(?![0-9])/g;
// A closing word as a word of its own, then spaces or a colon (`Fixes ENG-1`, `fixes: ENG-1`), ending right at the ref.
const CLOSING_BEFORE = new RegExp(`(?<![A-Za-z0-9])(?:${CLOSING_WORDS.join('|')})(?:[ \\t]*:[ \\t]*|[ \\t]+)$`, 'i');

export interface RefMention {
  /** Upper-case prefix and number: `ENG-42`. */
  ref: string;
  prefix: string;
  number: number;
  closing: boolean;
}

/** Every ref in `text`, once each; `closing` when any of its mentions is a closing one (or `allClosing`). */
export function refsIn(text: string, allClosing = false): RefMention[] {
  const found = new Map<string, RefMention>();
  for (const m of text.matchAll(REF)) {
    const prefix = m[1]!.toUpperCase();
    const number = Number(m[2]);
    const ref = `${prefix}-${number}`;
    const closing = allClosing || CLOSING_BEFORE.test(text.slice(Math.max(0, m.index - 40), m.index));
    const seen = found.get(ref);
    if (seen) seen.closing ||= closing;
    else found.set(ref, { ref, prefix, number, closing });
  }
  return [...found.values()];
}

/**
 * The refs of a pull request: its head branch name (every ref there closes), title and body
 * (a ref closes when a closing word stands right before it). One entry per ref.
 */
export function pullRequestRefs(pr: { branch: string; title: string; body: string | null }): RefMention[] {
  const all = new Map<string, RefMention>();
  for (const mention of [...refsIn(pr.branch, true), ...refsIn(pr.title), ...refsIn(pr.body ?? '')]) {
    const seen = all.get(mention.ref);
    if (seen) seen.closing ||= mention.closing;
    else all.set(mention.ref, { ...mention });
  }
  return [...all.values()];
}
