import { Lexer, type Token, type Tokens } from 'marked';
import { Fragment, type ReactNode } from 'react';
import type { Member } from '../../api/types';

/**
 * User Markdown rendered safely (contract §11). `marked` (a maintained CommonMark and GFM
 * parser) reads the text into tokens; they become React elements here, never an HTML string,
 * so raw HTML shows as the text it is and nothing sets HTML. Links only http, https and
 * mailto, opened apart from tack; images as their alt text; `@mem_…` as the member's name.
 */

/** Links only to http, https and mailto (contract §11); anything else (javascript:, data:, a relative path) is dropped. */
function safeUrl(url: string): string {
  const u = url.trim();
  return /^(https?:\/\/|mailto:)/i.test(u) ? u : '';
}

const MENTION = /@(mem_[a-z0-9]{1,60})/g;
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** The lexer leaves character references as written; an HTML renderer would let the browser read them. */
const decode = (text: string) =>
  text.replace(ENTITY, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name]!;
    const code = Number.parseInt(dec ?? hex!, dec ? 10 : 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

interface Ctx {
  members: readonly Member[] | undefined;
  /** Inside a link's text: no link in it. */
  inLink: boolean;
}

/** Plain text, with `@mem_…` as the member's name in bold (as text: a name is never read as Markdown). */
function plain(s: string, ctx: Ctx): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of s.matchAll(MENTION)) {
    const member = ctx.members?.find((x) => x.id === m[1]);
    if (!member) continue;
    if (m.index > last) out.push(decode(s.slice(last, m.index)));
    out.push(<strong key={out.length}>@{member.name}</strong>);
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push(decode(s.slice(last)));
  return out;
}

function link(token: Tokens.Link, ctx: Ctx, key: number): ReactNode {
  const children = inline(token.tokens, { ...ctx, inLink: true });
  const url = safeUrl(token.href);
  if (!url || ctx.inLink) return <span key={key}>{children}</span>;
  return (
    <a key={key} href={url} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

function inline(tokens: readonly Token[] | undefined, ctx: Ctx): ReactNode[] {
  return (tokens ?? []).map((t, i) => {
    switch (t.type) {
      case 'strong':
        return <strong key={i}>{inline(t.tokens, ctx)}</strong>;
      case 'em':
        return <em key={i}>{inline(t.tokens, ctx)}</em>;
      case 'del':
        return <del key={i}>{inline(t.tokens, ctx)}</del>;
      case 'codespan':
        return <code key={i}>{t.text}</code>;
      case 'br':
        return <br key={i} />;
      case 'link':
        return link(t as Tokens.Link, ctx, i);
      case 'image':
        return <span key={i}>{decode(t.text)}</span>;
      case 'text':
        return <Fragment key={i}>{t.tokens ? inline(t.tokens, ctx) : plain(t.text, ctx)}</Fragment>;
      case 'checkbox':
        return null;
      default:
        // `escape`, inline `html` (shown as typed) and anything newer: the text as it stands.
        return <Fragment key={i}>{'text' in t && typeof t.text === 'string' ? (t.type === 'escape' ? t.text : plain(t.text, ctx)) : t.raw}</Fragment>;
    }
  });
}

function listItem(item: Tokens.ListItem, ctx: Ctx, key: number): ReactNode {
  const task = item.task ? item.checked === true : undefined;
  return (
    <li key={key} className={task === undefined ? undefined : 'task-list-item'}>
      {task !== undefined && <input type="checkbox" checked={task} disabled readOnly />}
      {task !== undefined && ' '}
      {blocks(item.tokens, ctx, !item.loose)}
    </li>
  );
}

function table(t: Tokens.Table, ctx: Ctx, key: number): ReactNode {
  const align = (k: number) => (t.align[k] ? { textAlign: t.align[k] } : undefined);
  return (
    <table key={key}>
      <thead>
        <tr>
          {t.header.map((cell, k) => (
            <th key={k} style={align(k)}>
              {inline(cell.tokens, ctx)}
            </th>
          ))}
        </tr>
      </thead>
      {t.rows.length > 0 && (
        <tbody>
          {t.rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, k) => (
                <td key={k} style={align(k)}>
                  {inline(cell.tokens, ctx)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      )}
    </table>
  );
}

/** Block tokens as elements; `tight`: a tight list item's paragraphs without their margins. */
function blocks(tokens: readonly Token[], ctx: Ctx, tight = false): ReactNode[] {
  return tokens.map((t, i) => {
    switch (t.type) {
      case 'heading': {
        const H = `h${Math.min(6, Math.max(1, (t as Tokens.Heading).depth))}` as 'h1';
        return <H key={i}>{inline(t.tokens, ctx)}</H>;
      }
      case 'paragraph':
        return tight ? <span key={i}>{inline(t.tokens, ctx)}</span> : <p key={i}>{inline(t.tokens, ctx)}</p>;
      case 'text':
        return <Fragment key={i}>{t.tokens ? inline(t.tokens, ctx) : plain(t.text, ctx)}</Fragment>;
      case 'code': {
        const lang = (t as Tokens.Code).lang?.split(/\s/)[0];
        return (
          <pre key={i}>
            <code className={lang ? `language-${lang}` : undefined}>{t.text}</code>
          </pre>
        );
      }
      case 'blockquote':
        return <blockquote key={i}>{blocks(t.tokens ?? [], ctx)}</blockquote>;
      case 'hr':
        return <hr key={i} />;
      case 'table':
        return table(t as Tokens.Table, ctx, i);
      case 'list': {
        const list = t as Tokens.List;
        const items = list.items.map((item, k) => listItem(item, ctx, k));
        const tasks = list.items.some((item) => item.task) ? 'contains-task-list' : undefined;
        const start = typeof list.start === 'number' && list.start !== 1 ? list.start : undefined;
        return list.ordered ? (
          <ol key={i} start={start} className={tasks}>
            {items}
          </ol>
        ) : (
          <ul key={i} className={tasks}>
            {items}
          </ul>
        );
      }
      case 'html':
        // Raw HTML is shown as the text it is, never read as HTML.
        return <p key={i}>{t.text}</p>;
      case 'space':
      case 'def':
      case 'checkbox':
        return null;
      default:
        return 'raw' in t ? <p key={i}>{t.raw}</p> : null;
    }
  });
}

export function MarkdownText({ text, members }: { text: string; members?: readonly Member[] | undefined }) {
  return <div className="markdown">{blocks(Lexer.lex(text, { gfm: true }), { members, inLink: false })}</div>;
}
