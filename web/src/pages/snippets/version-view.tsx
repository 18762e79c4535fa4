import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import type { Snippet, SnippetVersion } from '../../api/types';
import { formatDateTime } from '../../lib/dates';
import { CodeBlock } from '../../ui/code-block';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { SelectField } from '../../ui/select-field';
import { notify } from '../../ui/toast-queue';
import { copyText } from './copy-text';

/**
 * Any version of a snippet in full, to copy, or to restore: restoring makes a new version
 * holding that version's body (updateSnippet), so nothing is lost.
 */
export function VersionView({ snippet, versions, writer }: { snippet: Snippet; versions: readonly Pick<SnippetVersion, 'version' | 'created_at'>[]; writer: boolean }) {
  const qc = useQueryClient();
  const [n, setN] = useState(Math.max(1, snippet.version - 1));
  const version = useQuery({
    queryKey: ['snippet-version', snippet.id, n],
    queryFn: () => ok(api.GET('/snippets/{id}/versions/{n}', { params: { path: { id: snippet.id, n } } })),
    staleTime: Infinity,
  });
  const restore = useMutation({
    mutationFn: (body: string) => ok(api.PATCH('/snippets/{id}', { params: { path: { id: snippet.id } }, body: { body } })),
    onSuccess: (s) => {
      void qc.invalidateQueries({ queryKey: ['snippet'] });
      void qc.invalidateQueries({ queryKey: ['snippets'] });
      notify(`Restored v${n} as v${s.version}`);
    },
  });
  const options = versions.map((v) => ({ id: String(v.version), label: `v${v.version} · ${formatDateTime(v.created_at)}${v.version === snippet.version ? ' (current)' : ''}` }));
  return (
    <section aria-labelledby="version-h">
      <h2 id="version-h">A version in full</h2>
      <div className="row">
        <SelectField label="Version" value={String(n)} options={options} onChange={(v) => setN(Number(v))} testId="version-pick" />
        {version.data && (
          <button type="button" className="button" onClick={() => void copyText(version.data.body, `v${n} body copied`)}>
            Copy v{n} body
          </button>
        )}
        {writer && version.data && n !== snippet.version && (
          <button type="button" className="button" disabled={restore.isPending || version.data.body === snippet.body} onClick={() => restore.mutate(version.data.body)}>
            Restore v{n}
          </button>
        )}
      </div>
      {version.isError && <ErrorPanel error={version.error} retry={() => void version.refetch()} />}
      {version.isPending && <Loading label="Loading the version…" />}
      {version.data && <CodeBlock type={snippet.type} body={version.data.body} label={`${snippet.name}, version ${n}`} />}
    </section>
  );
}
