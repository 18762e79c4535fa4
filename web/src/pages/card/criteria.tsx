import { useState, type FormEvent } from 'react';
import { Link } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { keys, useMe } from '../../api/queries';
import type { Card, Criterion } from '../../api/types';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { InlineText } from '../../ui/inline-text';
import { notify, notifyUndo } from '../../ui/toast-queue';

/**
 * The card's criteria as a checklist: tick, add, rename, reorder, remove (with Undo: the
 * criterion made again where it was); their todos. Read-only for a caller who may not write.
 */
export function Criteria({ card, mayWrite }: { card: Card; mayWrite: boolean }) {
  const qc = useQueryClient();
  const me = useMe();
  const key = keys.criteria(card.ref);
  const list = useQuery({
    queryKey: key,
    queryFn: () => ok(api.GET('/cards/{id}/criteria', { params: { path: { id: card.id }, query: { limit: 100 } } })).then((p) => p.data),
  });
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: key });
    void qc.invalidateQueries({ queryKey: keys.card(card.ref) });
    void qc.invalidateQueries({ queryKey: ['cards'] });
    void qc.invalidateQueries({ queryKey: ['todos'] });
  };
  const update = useMutation({
    mutationFn: ({ c, body }: { c: Criterion; body: { title?: string; done?: boolean; position?: number } }) =>
      ok(api.PATCH('/cards/{id}/criteria/{criterion_id}', { params: { path: { id: card.id, criterion_id: c.id } }, body })),
    onMutate: async ({ c, body }) => {
      await qc.cancelQueries({ queryKey: key });
      const before = qc.getQueryData<Criterion[]>(key);
      qc.setQueryData<Criterion[]>(key, (rows) => {
        if (!rows) return rows;
        let next = rows.map((r) => (r.id === c.id ? { ...r, ...(body.title !== undefined ? { title: body.title } : {}), ...(body.done !== undefined ? { done: body.done } : {}) } : r));
        if (body.position !== undefined) {
          const moved = next.find((r) => r.id === c.id)!;
          next = next.filter((r) => r.id !== c.id);
          next.splice(body.position, 0, moved);
        }
        return next;
      });
      return { before };
    },
    onError: (_e, _v, ctx) => ctx?.before && qc.setQueryData(key, ctx.before),
    onSettled: refresh,
  });
  const add = useMutation({
    mutationFn: (title: string) => ok(api.POST('/cards/{id}/criteria', { params: { path: { id: card.id } }, body: { title } })),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (c: Criterion) => ok(api.DELETE('/cards/{id}/criteria/{criterion_id}', { params: { path: { id: card.id, criterion_id: c.id } } })),
    onSuccess: (_r, c) => {
      const position = (qc.getQueryData<Criterion[]>(key) ?? []).findIndex((r) => r.id === c.id);
      notifyUndo(`Removed “${c.title}”`, () => restore.mutate({ c, position }));
    },
    onSettled: refresh,
  });
  // Undo a removal: the same title and tick, at the same place (a new criterion goes last).
  const restore = useMutation({
    mutationFn: async ({ c, position }: { c: Criterion; position: number }) => {
      const made = await ok(api.POST('/cards/{id}/criteria', { params: { path: { id: card.id } }, body: { title: c.title } }));
      const body = { ...(c.done ? { done: true } : {}), ...(position >= 0 ? { position } : {}) };
      if (Object.keys(body).length > 0) await ok(api.PATCH('/cards/{id}/criteria/{criterion_id}', { params: { path: { id: card.id, criterion_id: made.id } }, body }));
    },
    onSettled: refresh,
  });
  const track = useMutation({
    mutationFn: (c: Criterion) =>
      ok(api.POST('/todos', { body: { title: c.title, card_id: card.id, criterion_id: c.id, org_id: me.data?.org.id } })),
    onSuccess: () => notify('Added to your todos'),
    onSettled: refresh,
  });
  const [title, setTitle] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!title.trim()) return;
    add.mutate(title.trim(), { onSuccess: () => setTitle('') });
  };

  if (list.isError && !list.data) return <ErrorPanel error={list.error} retry={() => void list.refetch()} />;
  if (!list.data) return <Loading label="Loading criteria…" />;
  const rows = list.data;
  const done = rows.filter((r) => r.done).length;
  return (
    <section aria-labelledby="criteria-h">
      <h2 id="criteria-h">
        Criteria <span className="muted small">{done} of {rows.length} done</span>
      </h2>
      {rows.length > 0 && (
        <ul className="list list-box criteria">
          {rows.map((c, i) => (
            <CriterionRow
              key={c.id}
              c={c}
              first={i === 0}
              last={i === rows.length - 1}
              onTick={(v) => update.mutate({ c, body: { done: v } })}
              mayWrite={mayWrite}
              onRename={(t) => update.mutateAsync({ c, body: { title: t } })}
              onMove={(d) => update.mutate({ c, body: { position: i + d } })}
              onRemove={() => remove.mutate(c)}
              onTrack={() => track.mutate(c)}
            />
          ))}
        </ul>
      )}
      {rows.length === 0 && !mayWrite && <p className="muted">No criteria.</p>}
      {mayWrite && (
        <form onSubmit={submit} className="row" style={{ marginTop: 8 }}>
          <label htmlFor="new-criterion" className="visually-hidden">
            New criterion
          </label>
          <input
            id="new-criterion"
            className="grow"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            onKeyDown={(e) => e.key === 'Escape' && setTitle('')}
            placeholder="Add a criterion"
            maxLength={300}
          />
          <button type="submit" className="button" disabled={add.isPending}>
            Add
          </button>
        </form>
      )}
    </section>
  );
}

interface RowProps {
  c: Criterion;
  first: boolean;
  last: boolean;
  onTick: (done: boolean) => void;
  mayWrite: boolean;
  onRename: (title: string) => Promise<unknown>;
  onMove: (delta: number) => void;
  onRemove: () => void;
  onTrack: () => void;
}

function CriterionRow({ c, first, last, mayWrite, onTick, onRename, onMove, onRemove, onTrack }: RowProps) {
  const [editing, setEditing] = useState(false);
  if (!mayWrite) {
    return (
      <li data-criterion={c.id}>
        <span className={`grow criterion-title${c.done ? ' done-text' : ''}`}>
          <span className="visually-hidden">{c.done ? 'Done: ' : 'Open: '}</span>
          {c.title}
        </span>
      </li>
    );
  }
  return (
    <li data-criterion={c.id}>
      <input id={`done-${c.id}`} type="checkbox" checked={c.done} onChange={(e) => onTick(e.target.checked)} aria-label={`Done: ${c.title}`} />
      {editing ? (
        <span className="row grow">
          <InlineText id={`rename-${c.id}`} label="Rename criterion" className="grow" autoFocus value={c.title} onSave={onRename} onClose={() => setEditing(false)} />
        </span>
      ) : (
        // The title ticks the box too, as on any checklist.
        <label htmlFor={`done-${c.id}`} className={`grow criterion-title${c.done ? ' done-text' : ''}`}>
          {c.title}
        </label>
      )}
      {/* One group, so that on a phone it wraps under the title as a whole. */}
      <span className="row criterion-actions">
        {c.todo_id ? (
          <Link to="/todos" hash={c.todo_id} className="chip accent" title="A todo mirrors this criterion">
            Todo
          </Link>
        ) : (
          <button type="button" className="button small" onClick={onTrack} title="Add it to your todos; ticking one ticks the other">
            + Todo
          </button>
        )}
        <span className="row" style={{ gap: 0 }}>
          {!editing && (
            <button type="button" className="icon-button" onClick={() => setEditing(true)} aria-label={`Rename ${c.title}`}>
              ✎
            </button>
          )}
          <button type="button" className="icon-button" onClick={() => onMove(-1)} disabled={first} aria-label={`Move ${c.title} up`}>
            ↑
          </button>
          <button type="button" className="icon-button" onClick={() => onMove(1)} disabled={last} aria-label={`Move ${c.title} down`}>
            ↓
          </button>
          <button type="button" className="icon-button" onClick={onRemove} aria-label={`Remove ${c.title}`}>
            ×
          </button>
        </span>
      </span>
    </li>
  );
}
