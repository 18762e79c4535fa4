import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MarkdownText } from './markdown';

/** A description or comment as the card page renders it (contract §11: no raw HTML, links http, https and mailto only). */
const html = (text: string) => renderToStaticMarkup(createElement(MarkdownText, { text, members: [{ id: 'mem_ada', name: 'Ada Lovelace' } as never] }));

describe('Markdown on the card page (marked, rendered as React elements)', () => {
  it('renders what people write in GitHub-flavoured Markdown', () => {
    const out = html(
      ['# Plan', '', 'Some *em*, **strong**, ~~gone~~ and `a<b>` &amp; more', '', '- [x] done', '- [ ] open', '', '1. one', '2. two', '', '| a | b |', '|:--|--:|', '| 1 | 2 |', '', '> quoted', '', '```sql', 'select 1 < 2;', '```', '', '---'].join('\n'),
    );
    expect(out).toContain('<h1>Plan</h1>');
    expect(out).toContain('<em>em</em>');
    expect(out).toContain('<strong>strong</strong>');
    expect(out).toContain('<del>gone</del>');
    expect(out).toContain('<code>a&lt;b&gt;</code>');
    expect(out).toContain('&amp; more');
    expect(out).toMatch(/<ul class="contains-task-list"><li class="task-list-item"><input type="checkbox" disabled="" readOnly="" checked=""\/>/);
    expect(out).toContain('<ol><li>');
    expect(out).toContain('<th style="text-align:left">a</th><th style="text-align:right">b</th>');
    expect(out).toContain('<blockquote><p>quoted</p></blockquote>');
    expect(out).toContain('<pre><code class="language-sql">select 1 &lt; 2;</code></pre>');
    expect(out).toContain('<hr/>');
  });

  it('shows raw HTML as text, keeps only http, https and mailto links, and images as their alt text', () => {
    const out = html('<script>alert(1)</script>\n\nHi <b>there</b> [x](javascript:alert(1)) [d](https://example.com/d) <mailto:a@b.c> ![a cat](https://example.com/cat.png) www.example.com');
    expect(out).not.toMatch(/<script|<b>|<img|javascript:/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;b&gt;there&lt;/b&gt;');
    expect(out).toContain(' <span>x</span> ');
    expect(out).toContain('<a href="https://example.com/d" target="_blank" rel="noopener noreferrer nofollow">');
    expect(out).toContain('href="mailto:a@b.c"');
    expect(out).toContain('<span>a cat</span>');
    expect(out).toContain('href="http://www.example.com"');
  });

  it('names a mentioned member, as text that is never read as Markdown', () => {
    expect(html('Over to @mem_ada, and @mem_nobody')).toContain('Over to <strong>@Ada Lovelace</strong>, and @mem_nobody');
  });
});
