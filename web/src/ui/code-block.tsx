import { useMemo } from 'react';
import { highlight } from '../lib/highlight';

/** A snippet body as code: coloured tokens, each a text node (never markup). */
export function CodeBlock({ type, body, label }: { type: string; body: string; label: string }) {
  const tokens = useMemo(() => highlight(type, body), [type, body]);
  return (
    <pre className="code" tabIndex={0} aria-label={label} data-testid="snippet-body">
      <code>
        {tokens.map((t, i) =>
          t.kind === 'plain' ? (
            t.text
          ) : (
            <span key={i} className={`tok-${t.kind}`}>
              {t.text}
            </span>
          ),
        )}
      </code>
    </pre>
  );
}
