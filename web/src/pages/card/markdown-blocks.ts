/**
 * The blocks of user Markdown (GitHub's flavour, the parts people write in a card): headings,
 * paragraphs, fenced code, block quotes, lists (with task items), tables and rules. A small
 * parser of our own instead of a Markdown library, so the card page's first load stays in
 * issue 32's budget; inline text is left as source for markdown-inline.tsx. Raw HTML is not
 * a block here: it is a paragraph's text, shown as typed.
 */

export type Align = 'left' | 'center' | 'right' | undefined;
export type Block =
  | { type: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'code'; lang: string; text: string }
  | { type: 'quote'; blocks: Block[] }
  | { type: 'list'; ordered: boolean; start: number; tight: boolean; items: Item[] }
  | { type: 'table'; align: Align[]; head: string[]; rows: string[][] }
  | { type: 'rule' };
export interface Item {
  checked: boolean | undefined;
  blocks: Block[];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const DELIMITER_ROW = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const blank = (line: string) => line.trim() === '';

/** A table row's cells, split on `|` that is neither escaped nor inside a code span. */
export function cells(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const out: string[] = [];
  let cell = '';
  let code = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && s[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '`') {
      code = !code;
      cell += c;
    } else if (c === '|' && !code) {
      out.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  out.push(cell.trim());
  return out;
}

/** Whether a line starts a block other than a paragraph (so it ends a paragraph). */
function interrupts(line: string): boolean {
  if (FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line)) return true;
  const item = ITEM.exec(line);
  // An ordered list interrupts a paragraph only from 1, and no list with an empty first item.
  return item !== null && line.slice(item[0].length).trim() !== '' && (/^[-*+]$/.test(item[2]!) || /^1[.)]$/.test(item[2]!));
}

export function parseBlocks(source: string): Block[] {
  return blocks(source.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n'));
}

function blocks(lines: string[]): Block[] {
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (blank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const [, marks, lang] = fence;
      const indent = line.length - line.trimStart().length;
      const body: string[] = [];
      i++;
      while (i < lines.length && !new RegExp(`^ {0,3}${marks![0] === '`' ? '`' : '~'}{${marks!.length},}[ \\t]*$`).test(lines[i]!)) {
        body.push(lines[i]!.replace(new RegExp(`^ {0,${indent}}`), ''));
        i++;
      }
      i++;
      out.push({ type: 'code', lang: lang ?? '', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      out.push({ type: 'heading', level: heading[1]!.length as 1, text: heading[2] ?? '' });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push({ type: 'rule' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && !blank(lines[i]!) && (QUOTE.test(lines[i]!) || !interrupts(lines[i]!))) {
        inner.push(lines[i]!.replace(QUOTE, ''));
        i++;
      }
      out.push({ type: 'quote', blocks: blocks(inner) });
      continue;
    }
    if (ITEM.test(line)) {
      i = list(lines, i, out);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && DELIMITER_ROW.test(lines[i + 1]!) && lines[i + 1]!.includes('-')) {
      const head = cells(line);
      const align = cells(lines[i + 1]!).map((d): Align => (d.startsWith(':') ? (d.endsWith(':') ? 'center' : 'left') : d.endsWith(':') ? 'right' : undefined));
      if (align.length === head.length) {
        const rows: string[][] = [];
        i += 2;
        while (i < lines.length && !blank(lines[i]!) && !interrupts(lines[i]!)) {
          const row = cells(lines[i]!);
          rows.push(head.map((_, k) => row[k] ?? ''));
          i++;
        }
        out.push({ type: 'table', align, head, rows });
        continue;
      }
    }
    const para: string[] = [line];
    i++;
    while (i < lines.length && !blank(lines[i]!) && !interrupts(lines[i]!)) {
      const setext = SETEXT.exec(lines[i]!);
      if (setext) {
        out.push({ type: 'heading', level: setext[1]![0] === '=' ? 1 : 2, text: para.join('\n').trim() });
        para.length = 0;
        i++;
        break;
      }
      para.push(lines[i]!);
      i++;
    }
    if (para.length > 0) out.push({ type: 'paragraph', text: para.map((l) => l.trimStart()).join('\n').trim() });
  }
  return out;
}

/** A list from line `start`: its items, each the blocks of its indented lines. Returns the next line. */
function list(lines: string[], start: number, out: Block[]): number {
  const first = ITEM.exec(lines[start]!)!;
  const ordered = /\d/.test(first[2]!);
  const kind = first[2]!.slice(-1);
  const items: Item[] = [];
  let tight = true;
  let i = start;
  while (i < lines.length) {
    const m = ITEM.exec(lines[i]!);
    if (!m || /\d/.test(m[2]!) !== ordered || m[2]!.slice(-1) !== kind || RULE.test(lines[i]!)) break;
    const width = m[1]!.length + m[2]!.length + Math.min(Math.max(m[3]!.length, 1), 4);
    const body: string[] = [lines[i]!.slice(m[0].length)];
    i++;
    let gap = false;
    while (i < lines.length) {
      const l = lines[i]!;
      if (blank(l)) {
        body.push('');
        gap = true;
        i++;
        continue;
      }
      const indented = l.length - l.trimStart().length >= width;
      if (indented) body.push(l.slice(width));
      else if (!gap && !interrupts(l) && !ITEM.test(l)) body.push(l); // a lazy continuation line
      else break;
      gap = false;
      i++;
    }
    while (body.length > 0 && blank(body.at(-1)!)) body.pop();
    if (body.some(blank)) tight = false;
    let checked: boolean | undefined;
    const task = /^\[([ xX])\](?:[ \t]+|$)/.exec(body[0]!);
    if (task) {
      checked = task[1] !== ' ';
      body[0] = body[0]!.slice(task[0].length);
    }
    items.push({ checked, blocks: blocks(body) });
    // A blank line between two items makes the list loose.
    const next = i < lines.length ? ITEM.exec(lines[i]!) : null;
    if (next && blank(lines[i - 1]!) && /\d/.test(next[2]!) === ordered && next[2]!.slice(-1) === kind) tight = false;
  }
  out.push({ type: 'list', ordered, start: ordered ? Number.parseInt(first[2]!, 10) : 1, tight, items });
  return i;
}
