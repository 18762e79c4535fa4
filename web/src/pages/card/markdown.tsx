import type { ReactNode } from 'react';
import type { Member } from '../../api/types';
import { parseBlocks, type Block } from './markdown-blocks';
import { inline, type Ctx } from './markdown-inline';

export { safeUrl } from './markdown-inline';

function render(blocks: readonly Block[], ctx: Ctx, tight = false): ReactNode[] {
  return blocks.map((b, i) => {
    switch (b.type) {
      case 'heading': {
        const H = `h${b.level}` as const;
        return <H key={i}>{inline(b.text, ctx)}</H>;
      }
      case 'paragraph':
        return tight ? <span key={i}>{inline(b.text, ctx)}</span> : <p key={i}>{inline(b.text, ctx)}</p>;
      case 'code':
        return (
          <pre key={i}>
            <code className={b.lang ? `language-${b.lang}` : undefined}>{b.text}</code>
          </pre>
        );
      case 'quote':
        return <blockquote key={i}>{render(b.blocks, ctx)}</blockquote>;
      case 'rule':
        return <hr key={i} />;
      case 'table':
        return (
          <table key={i}>
            <thead>
              <tr>
                {b.head.map((cell, k) => (
                  <th key={k} style={b.align[k] ? { textAlign: b.align[k] } : undefined}>
                    {inline(cell, ctx)}
                  </th>
                ))}
              </tr>
            </thead>
            {b.rows.length > 0 && (
              <tbody>
                {b.rows.map((row, r) => (
                  <tr key={r}>
                    {row.map((cell, k) => (
                      <td key={k} style={b.align[k] ? { textAlign: b.align[k] } : undefined}>
                        {inline(cell, ctx)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            )}
          </table>
        );
      case 'list': {
        const items = b.items.map((item, k) => (
          <li key={k} className={item.checked === undefined ? undefined : 'task-list-item'}>
            {item.checked !== undefined && <input type="checkbox" checked={item.checked} disabled readOnly />}
            {item.checked !== undefined && ' '}
            {render(item.blocks, ctx, b.tight)}
          </li>
        ));
        const tasks = b.items.some((item) => item.checked !== undefined) ? 'contains-task-list' : undefined;
        return b.ordered ? (
          <ol key={i} start={b.start === 1 ? undefined : b.start} className={tasks}>
            {items}
          </ol>
        ) : (
          <ul key={i} className={tasks}>
            {items}
          </ul>
        );
      }
    }
  });
}

/**
 * User Markdown rendered safely (contract §11): React elements from our own small parser
 * (markdown-blocks.ts, markdown-inline.tsx), never an HTML string, so raw HTML shows as
 * the text it is; links only http, https and mailto, opened apart from tack; `@mem_…` as
 * the member's name.
 */
export function MarkdownText({ text, members }: { text: string; members?: readonly Member[] | undefined }) {
  return <div className="markdown">{render(parseBlocks(text), { members, key: 0 })}</div>;
}
