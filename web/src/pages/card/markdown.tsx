import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import type { Member } from '../../api/types';

/** Links only to http, https and mailto (contract §11); anything else (javascript:, data:, a relative path) is dropped. */
export function safeUrl(url: string): string {
  const u = url.trim();
  return /^(https?:\/\/|mailto:)/i.test(u) ? u : '';
}

const MENTION = /@(mem_[a-z0-9]{1,60})/g;
const escapeMarkdown = (text: string) => text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');

/** `@mem_…` shown as the member's name (as text: a name is never read as Markdown). */
export function withNames(markdown: string, members: readonly Member[] | undefined): string {
  return markdown.replace(MENTION, (whole, id: string) => {
    const m = members?.find((x) => x.id === id);
    return m ? `**@${escapeMarkdown(m.name)}**` : whole;
  });
}

/**
 * User Markdown rendered safely: no raw HTML (react-markdown shows it as text without
 * rehype-raw), links only http, https and mailto, opened apart from tack.
 */
export function MarkdownText({ text, members }: { text: string; members?: readonly Member[] | undefined }) {
  return (
    <div className="markdown">
      <Markdown
        remarkPlugins={[remarkGfm]}
        urlTransform={safeUrl}
        skipHtml={false}
        components={{
          a: ({ href, children }) =>
            href ? (
              <a href={href} target="_blank" rel="noopener noreferrer nofollow">
                {children}
              </a>
            ) : (
              <span>{children}</span>
            ),
          img: ({ alt }) => <span>{alt}</span>,
        }}
      >
        {withNames(text, members)}
      </Markdown>
    </div>
  );
}
