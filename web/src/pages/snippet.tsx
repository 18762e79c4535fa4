import { useState } from 'react';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, ok } from '../api/client';
import { keys, useMe } from '../api/queries';
import { mayWrite } from '../lib/may-write';
import { copyText } from './snippets/copy-text';
import type { Snippet } from '../api/types';
import { formatDateTime } from '../lib/dates';
import { CodeBlock } from '../ui/code-block';
import { ConfirmDialog } from '../ui/dialogs';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { notify } from '../ui/toast-queue';
import { SnippetForm, type SnippetFields } from './snippets/snippet-form';
import { Versions } from './snippets/versions';

const route = getRouteApi('/snippets/$key');

export function SnippetPage() {
  const { key } = route.useParams();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const writer = mayWrite(useMe().data);
  const snippet = useQuery({ queryKey: keys.snippet(key), queryFn: () => ok(api.GET('/snippets/{id}', { params: { path: { id: key } } })) });
  const saved = (s: Snippet) => {
    qc.setQueryData(keys.snippet(key), s);
    void qc.invalidateQueries({ queryKey: ['snippets'] });
    if (s.slug !== key && !key.startsWith('snp_')) void navigate({ to: '/snippets/$key', params: { key: s.slug }, replace: true });
  };
  const update = useMutation({
    meta: { inline: true },
    mutationFn: ({ s, f }: { s: Snippet; f: SnippetFields }) =>
      ok(
        api.PATCH('/snippets/{id}', {
          params: { path: { id: s.id } },
          body: { name: f.name, category: f.category, tags: f.tags, visibility: f.visibility, ...(f.body !== s.body ? { body: f.body } : {}) },
        }),
      ),
    onSuccess: (s) => {
      saved(s);
      setEditing(false);
    },
  });
  const rotate = useMutation({
    mutationFn: (s: Snippet) => ok(api.POST('/snippets/{id}/link', { params: { path: { id: s.id } } })),
    onSuccess: (link) => {
      const s = snippet.data;
      if (s) qc.setQueryData(keys.snippet(key), { ...s, public_url: link.public_url });
      notify('New public link made', 'The old link now answers 404.');
    },
  });
  const remove = useMutation({
    mutationFn: (s: Snippet) => ok(api.DELETE('/snippets/{id}', { params: { path: { id: s.id } } })),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['snippets'] });
      notify('Snippet deleted');
      void navigate({ to: '/snippets', search: {} });
    },
  });

  if (snippet.isError) return <ErrorPanel error={snippet.error} retry={() => void snippet.refetch()} />;
  if (!snippet.data) return <Loading />;
  const s = snippet.data;
  const copy = async () => {
    if (!s.public_url) return;
    try {
      await navigator.clipboard.writeText(s.public_url);
      notify('Public link copied');
    } catch {
      notify('Copy the link from the field', s.public_url);
    }
  };
  return (
    <article className="page snippet-page">
      <div className="crumbs">
        <Link to="/snippets" search={{}}>
          Snippets
        </Link>{' '}
        /
      </div>
      <div className="page-head">
        <h1>{s.name}</h1>
        <div className="row">
          {!editing && (
            <button type="button" className="button" onClick={() => void copyText(s.body, 'Body copied')}>
              Copy body
            </button>
          )}
          {writer && !editing && (
            <button type="button" className="button" onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
          {writer && (
          <ConfirmDialog
            trigger={<Button className="button danger">Delete</Button>}
            title={`Delete “${s.name}”?`}
            confirmLabel="Delete snippet"
            onConfirm={() => remove.mutate(s)}
          >
            <p>All {s.version} versions are removed and the public link stops working. This cannot be undone.</p>
          </ConfirmDialog>
          )}
        </div>
      </div>
      <div className="row muted small" style={{ marginBottom: 12 }}>
        <span className="chip mono">{s.type}</span>
        <span className="chip">{s.visibility}</span>
        {s.category && <span>{s.category}</span>}
        {s.tags.map((t) => (
          <Link key={t} to="/snippets" search={{ tag: t }} className="tag-link">
            #{t}
          </Link>
        ))}
        <span>
          v{s.version} · updated {formatDateTime(s.updated_at)}
        </span>
      </div>
      {editing ? (
        <div className="panel">
          <SnippetForm initial={s} busy={update.isPending} error={update.error} submitLabel="Save" onSubmit={(f) => update.mutate({ s, f })} onCancel={() => setEditing(false)} />
        </div>
      ) : (
        <CodeBlock type={s.type} body={s.body} label={`${s.name}, ${s.type} body`} />
      )}
      <section aria-labelledby="link-h" className="public-link">
        <h2 id="link-h">Public link</h2>
        {s.public_url ? (
          <div className="row">
            <label htmlFor="public-url" className="visually-hidden">
              Public link
            </label>
            <input id="public-url" className="grow mono" readOnly value={s.public_url} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" className="button" onClick={() => void copy()}>
              Copy link
            </button>
            {writer && (
            <ConfirmDialog
              trigger={<Button className="button">Rotate</Button>}
              title="Make a new public link?"
              confirmLabel="Rotate link"
              danger={false}
              onConfirm={() => rotate.mutate(s)}
            >
              <p>Whoever has the current link loses access at once.</p>
            </ConfirmDialog>
            )}
          </div>
        ) : (
          <p className="muted">No public link.</p>
        )}
      </section>
      <Versions snippet={s} writer={writer} />
    </article>
  );
}
