import { useEffect, useState } from 'react';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, ok } from '../api/client';
import { keys } from '../api/queries';
import { formatDateTime } from '../lib/dates';
import type { SnippetSearch } from '../router';
import { FormDialog } from '../ui/dialogs';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { SelectField } from '../ui/select-field';
import { SnippetForm, type SnippetFields } from './snippets/snippet-form';

const route = getRouteApi('/snippets');
const TYPE_OPTIONS = [{ id: '', label: 'All types' }, ...['sql', 'json', 'html', 'txt'].map((t) => ({ id: t, label: t.toUpperCase() }))];

export function SnippetsPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const [q, setQ] = useState(search.q ?? '');
  // The query string changed from outside the box (the nav's Snippets link, Back): the box follows.
  useEffect(() => setQ(search.q ?? ''), [search.q]);
  // Search as you type: the query string follows the box a moment after the last key.
  useEffect(() => {
    const t = setTimeout(() => {
      if ((search.q ?? '') !== q) void navigate({ to: '.', search: (s: SnippetSearch) => ({ ...s, q: q || undefined }), replace: true });
    }, 200);
    return () => clearTimeout(t);
  }, [q, search.q, navigate]);

  const list = useInfiniteQuery({
    queryKey: keys.snippets(search),
    queryFn: ({ pageParam }) =>
      ok(api.GET('/snippets', { params: { query: { q: search.q, type: search.type, tag: search.tag, cursor: pageParam, limit: 25 } } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    placeholderData: (prev) => prev,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <section className="page narrow">
      <div className="page-head">
        <h1>Snippets</h1>
        <NewSnippet />
      </div>
      <div className="row snippet-filters" role="search">
        <label htmlFor="snippet-q" className="visually-hidden">
          Search snippets
        </label>
        <input id="snippet-q" type="search" className="grow" value={q} maxLength={1000} onChange={(e) => setQ(e.target.value)} placeholder="Search snippets" />
        <SelectField
          label="Type"
          hideLabel
          value={search.type ?? ''}
          options={TYPE_OPTIONS}
          onChange={(t) => void navigate({ to: '.', search: (s: SnippetSearch) => ({ ...s, type: (t || undefined) as SnippetSearch['type'] }) })}
        />
        {search.tag && (
          <Link from="/snippets" to="." search={(s: SnippetSearch) => ({ ...s, tag: undefined })} className="chip on" aria-label={`Remove tag filter ${search.tag}`}>
            #{search.tag} ×
          </Link>
        )}
      </div>
      {list.isError && <ErrorPanel error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <Loading />}
      {list.data && rows.length === 0 && (
        <p className="muted">
          {search.q || search.type || search.tag
            ? 'No snippet matches.'
            : 'No snippets yet. A snippet keeps a query, a payload or a note, with its versions and a public link: press New snippet.'}
        </p>
      )}
      {rows.length > 0 && (
        <ul className="list list-box" aria-label="Snippets" data-testid="snippet-list" aria-busy={list.isFetching}>
          {rows.map((s) => (
            <li key={s.id}>
              <span className="chip mono type-chip">{s.type}</span>
              <div className="grow">
                <Link to="/snippets/$key" params={{ key: s.slug }} className="strong-link">
                  {s.name}
                </Link>
                <div className="row muted small">
                  {s.category && <span>{s.category}</span>}
                  {s.tags.map((t) => (
                    <Link key={t} from="/snippets" to="." search={(p: SnippetSearch) => ({ ...p, tag: t })} className="tag-link">
                      #{t}
                    </Link>
                  ))}
                  <span>
                    v{s.version} · {formatDateTime(s.updated_at)}
                  </span>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
      {list.hasNextPage && (
        <p style={{ marginTop: 12 }}>
          <button type="button" className="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
            {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </p>
      )}
    </section>
  );
}

function NewSnippet() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    meta: { inline: true },
    mutationFn: (f: SnippetFields) =>
      ok(api.POST('/snippets', { body: { type: f.type, name: f.name, body: f.body, tags: f.tags, visibility: f.visibility, ...(f.category ? { category: f.category } : {}) } })),
    onSuccess: (s) => {
      void qc.invalidateQueries({ queryKey: ['snippets'] });
      void navigate({ to: '/snippets/$key', params: { key: s.slug } });
    },
  });
  return (
    <FormDialog
      title="New snippet"
      trigger={<Button className="button primary">New snippet</Button>}
    >
      {(close) => <SnippetForm busy={create.isPending} error={create.error} submitLabel="Create" onSubmit={(f) => create.mutate(f)} onCancel={close} />}
    </FormDialog>
  );
}
