import type { ReactNode } from 'react';
import type { Member } from '../../api/types';

/**
 * A Markdown block's inline text as React elements: emphasis, strong, strikethrough, code
 * spans, links and autolinks (http, https and mailto only, opened apart from tack), images
 * as their alt text, hard breaks, and `@mem_…` as the member's name. Everything else,
 * raw HTML included, is text: React escapes it, and nothing here sets HTML.
 */

/** Links only to http, https and mailto (contract §11); anything else (javascript:, data:, a relative path) is dropped. */
export function safeUrl(url: string): string {
  const u = url.trim();
  return /^(https?:\/\/|mailto:)/i.test(u) ? u : '';
}

const MENTION = /@(mem_[a-z0-9]{1,60})/g;
const PUNCT = /[!-/:-@[-`{-~]/;
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const AUTOLINK = /^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s<>]*)>/;
const AUTO_EMAIL = /^<([\w.!#$%&'*+/=?^`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*)>/;
const BARE_URL = /^(?:https?:\/\/|www\.)[^\s<]*[^\s<?!.,:*_~'")\]]/i;

const decode = (text: string) =>
  text.replace(ENTITY, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name]!;
    const code = Number.parseInt(dec ?? hex!, dec ? 10 : 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

export interface Ctx {
  members: readonly Member[] | undefined;
  key: number;
  /** Inside a link's text: no link in it. */
  inLink?: boolean;
}

/** Plain text, with `@mem_…` as the member's name in bold (as text: a name is never read as Markdown). */
function text(s: string, ctx: Ctx, out: ReactNode[]): void {
  if (s === '') return;
  let last = 0;
  for (const m of s.matchAll(MENTION)) {
    const member = ctx.members?.find((x) => x.id === m[1]);
    if (!member) continue;
    if (m.index > last) out.push(decode(s.slice(last, m.index)));
    out.push(<strong key={ctx.key++}>@{member.name}</strong>);
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push(decode(s.slice(last)));
}

function link(href: string, children: ReactNode[], ctx: Ctx): ReactNode {
  const url = safeUrl(href);
  return url ? (
    <a key={ctx.key++} href={url} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ) : (
    <span key={ctx.key++}>{children}</span>
  );
}

/** `[text](dest "title")` from `open` (the `[`): the text's end and the destination, or undefined. */
function bracketed(s: string, open: number): { label: string; href: string; end: number } | undefined {
  let depth = 0;
  let close = -1;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '`') {
      const run = /^`+/.exec(s.slice(i))![0];
      const end = s.indexOf(run, i + run.length);
      if (end > 0) i = end + run.length - 1;
    } else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0 || s[close + 1] !== '(') return undefined;
  let parens = 0;
  for (let i = close + 2; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '(') parens++;
    else if (c === ')' && parens-- === 0) {
      const dest = s.slice(close + 2, i).trim();
      const m = /^(<[^>]*>|\S*)(?:\s+("[^"]*"|'[^']*'|\([^)]*\)))?$/.exec(dest);
      if (!m) return undefined;
      return { label: s.slice(open + 1, close), href: m[1]!.replace(/^<|>$/g, '').replace(/\\([!-/:-@[-`{-~])/g, '$1'), end: i + 1 };
    }
  }
  return undefined;
}

/** The closing run of `delim` for an opener at `from`: not after whitespace, and for `_` not inside a word. */
function closer(s: string, delim: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\') {
      i++;
      continue;
    }
    if (s[i] === '`') {
      const run = /^`+/.exec(s.slice(i))![0];
      const end = s.indexOf(run, i + run.length);
      if (end > 0) i = end + run.length - 1;
      continue;
    }
    if (s.startsWith(delim, i) && !/\s/.test(s[i - 1] ?? ' ') && i > from) {
      const after = s[i + delim.length] ?? ' ';
      if (delim[0] === '_' && /[\p{L}\p{N}]/u.test(after)) continue;
      // `*a **b** c*`: a double run is not the single's closer.
      if (delim.length === 1 && s[i + 1] === delim && s[i + 2] !== delim) {
        i++;
        continue;
      }
      return i;
    }
  }
  return -1;
}

export function inline(s: string, ctx: Ctx): ReactNode[] {
  const out: ReactNode[] = [];
  let buf = '';
  const flush = () => {
    text(buf, ctx, out);
    buf = '';
  };
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    const rest = s.slice(i);
    if (c === '\\' && s[i + 1] === '\n') {
      flush();
      out.push(<br key={ctx.key++} />);
      i += 2;
      continue;
    }
    if (c === '\\' && PUNCT.test(s[i + 1] ?? '')) {
      buf += s[i + 1];
      i += 2;
      continue;
    }
    if (c === '\n') {
      flush();
      if (/ {2,}$/.test(out.length > 0 && typeof out.at(-1) === 'string' ? (out.at(-1) as string) : '')) {
        out[out.length - 1] = (out.at(-1) as string).replace(/ +$/, '');
        out.push(<br key={ctx.key++} />);
      } else out.push('\n');
      i++;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(rest)![0];
      const end = s.indexOf(run, i + run.length);
      if (end > 0 && s[end + run.length] !== '`') {
        flush();
        let code = s.slice(i + run.length, end).replace(/\n/g, ' ');
        if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
        out.push(<code key={ctx.key++}>{code}</code>);
        i = end + run.length;
        continue;
      }
      buf += run;
      i += run.length;
      continue;
    }
    if (c === '<' && !ctx.inLink) {
      const auto = AUTOLINK.exec(rest);
      const email = auto ? undefined : AUTO_EMAIL.exec(rest);
      if (auto || email) {
        flush();
        const target = auto ? auto[1]! : `mailto:${email![1]}`;
        out.push(link(target, [auto ? auto[1] : email![1]], ctx));
        i += (auto ?? email)![0].length;
        continue;
      }
    }
    if (c === '[' || (c === '!' && s[i + 1] === '[')) {
      const image = c === '!';
      const b = bracketed(s, image ? i + 1 : i);
      if (b) {
        flush();
        // An image is shown as its alt text; tack loads nothing from a description.
        out.push(image ? <span key={ctx.key++}>{b.label}</span> : link(b.href, inline(b.label, { ...ctx, inLink: true }), ctx));
        i = b.end;
        continue;
      }
    }
    if (!ctx.inLink && (c === 'h' || c === 'H' || c === 'w' || c === 'W') && !/[\p{L}\p{N}]/u.test(s[i - 1] ?? ' ')) {
      const bare = BARE_URL.exec(rest);
      if (bare) {
        let url = bare[0];
        // A closing parenthesis that closes nothing in the link ends it (as GitHub does).
        while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) url = url.slice(0, -1);
        flush();
        out.push(link(/^www\./i.test(url) ? `https://${url}` : url, [url], ctx));
        i += url.length;
        continue;
      }
    }
    if (c === '*' || c === '_' || c === '~') {
      const run = /^([*_~])\1*/.exec(rest)![0];
      const prev = s[i - 1] ?? ' ';
      const next = s[i + run.length] ?? ' ';
      const opens = !/\s/.test(next) && !(c === '_' && /[\p{L}\p{N}]/u.test(prev)) && !(c === '~' && run.length > 2);
      const delim = c === '~' ? run : run.slice(0, Math.min(run.length, 3));
      if (opens && (c !== '~' || run.length === 2 || run.length === 1)) {
        const end = closer(s, delim, i + delim.length);
        if (end > 0) {
          flush();
          const children = inline(s.slice(i + delim.length, end), ctx);
          const key = ctx.key++;
          out.push(
            c === '~' ? (
              <del key={key}>{children}</del>
            ) : delim.length === 3 ? (
              <em key={key}>
                <strong>{children}</strong>
              </em>
            ) : delim.length === 2 ? (
              <strong key={key}>{children}</strong>
            ) : (
              <em key={key}>{children}</em>
            ),
          );
          i = end + delim.length;
          continue;
        }
      }
      buf += run;
      i += run.length;
      continue;
    }
    buf += c;
    i++;
  }
  flush();
  return out;
}
