import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { allPages, api, ok } from '../../api/client';
import type { Snippet } from '../../api/types';
import { diffLines } from '../../lib/diff';
import { formatDateTime } from '../../lib/dates';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { SelectField } from '../../ui/select-field';
import { VersionView } from './version-view';

/** A snippet's versions, and a line diff between any two of them. */
export function Versions({ snippet, writer }: { snippet: Snippet; writer: boolean }) {
  const versions = useQuery({
    queryKey: ['snippet-versions', snippet.id, snippet.version],
    queryFn: () => allPages((cursor) => ok(api.GET('/snippets/{id}/versions', { params: { path: { id: snippet.id }, query: { cursor, limit: 100 } } }))),
  });
  const [from, setFrom] = useState(Math.max(1, snippet.version - 1));
  const [to, setTo] = useState(snippet.version);
  const version = (n: number) => ({
    queryKey: ['snippet-version', snippet.id, n],
    queryFn: () => ok(api.GET('/snippets/{id}/versions/{n}', { params: { path: { id: snippet.id, n } } })),
    staleTime: Infinity,
  });
  const a = useQuery(version(from));
  const b = useQuery(version(to));
  const lines = useMemo(() => (a.data && b.data ? diffLines(a.data.body, b.data.body) : null), [a.data, b.data]);
  if (versions.isError) return <ErrorPanel error={versions.error} retry={() => void versions.refetch()} />;
  if (!versions.data) return <Loading label="Loading versions…" />;
  const options = versions.data.map((v) => ({ id: String(v.version), label: `v${v.version} · ${formatDateTime(v.created_at)}` }));
  const changed = lines?.filter((l) => l.kind !== 'same').length ?? 0;
  return (
    <>
    <section aria-labelledby="versions-h">
      <h2 id="versions-h">
        Versions <span className="muted small">{versions.data.length}</span>
      </h2>
      {versions.data.length < 2 ? (
        <p className="muted">Only one version so far: editing the body makes the next one.</p>
      ) : (
        <>
          <div className="row">
            <SelectField label="Compare" value={String(from)} options={options} onChange={(v) => setFrom(Number(v))} testId="diff-from" />
            <SelectField label="with" value={String(to)} options={options} onChange={(v) => setTo(Number(v))} testId="diff-to" />
          </div>
          {(a.isError || b.isError) && <ErrorPanel error={a.error ?? b.error} />}
          {lines && (
            <>
              <p className="muted small" aria-live="polite">
                {changed === 0 ? 'The bodies are the same.' : `${changed} changed line${changed === 1 ? '' : 's'}.`}
              </p>
              <div className="diff" role="region" aria-label={`Changes from v${from} to v${to}`} tabIndex={0} data-testid="diff">
                {lines.map((l, i) => (
                  <div key={i} className={l.kind}>
                    <span className="sign" aria-hidden="true">
                      {l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ' '}
                    </span>
                    {l.kind !== 'same' && <span className="visually-hidden">{l.kind === 'add' ? 'added: ' : 'removed: '}</span>}
                    {l.text}
                  </div>
                ))}
              </div>
            </>
          )}
        </>
      )}
    </section>
    {versions.data.length > 1 && <VersionView snippet={snippet} versions={versions.data} writer={writer} />}
    </>
  );
}
