import { useEffect, useState, type FormEvent } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { keys, useBoards, useMembers, useMilestones } from '../api/queries';
import { STATUSES, STATUS_LABEL, type Card } from '../api/types';
import { formatDateTime } from '../lib/dates';
import { initials } from '../lib/people';
import { DateField } from '../ui/date-field';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { SelectField } from '../ui/select-field';
import { Criteria } from './card/criteria';

const route = getRouteApi('/cards/$ref');

type CardPatch = { title?: string; workflow_status?: Card['workflow_status']; due_on?: string | null; assignee_ids?: string[]; milestone?: string | null };

export function CardPage() {
  const { ref } = route.useParams();
  const qc = useQueryClient();
  const card = useQuery({ queryKey: keys.card(ref), queryFn: () => ok(api.GET('/cards/{id}', { params: { path: { id: ref } } })) });
  const moves = useQuery({ queryKey: keys.moves(ref), queryFn: () => ok(api.GET('/cards/{id}/moves', { params: { path: { id: ref } } })) });
  const members = useMembers();
  const milestones = useMilestones();
  const boards = useBoards();
  const patch = useMutation({
    mutationFn: (body: CardPatch) => ok(api.PATCH('/cards/{id}', { params: { path: { id: ref } }, body })),
    onMutate: async (body) => {
      await qc.cancelQueries({ queryKey: keys.card(ref) });
      const before = qc.getQueryData<Card>(keys.card(ref));
      if (before) qc.setQueryData<Card>(keys.card(ref), { ...before, ...(body as Partial<Card>) });
      return { before };
    },
    onError: (_e, _v, ctx) => ctx?.before && qc.setQueryData(keys.card(ref), ctx.before),
    onSuccess: (c) => qc.setQueryData(keys.card(ref), c),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: ['cards'] });
      void qc.invalidateQueries({ queryKey: keys.milestones });
    },
  });

  if (card.isError && !card.data) return <ErrorPanel error={card.error} retry={() => void card.refetch()} />;
  if (!card.data) return <Loading />;
  const c = card.data;
  const board = boards.data?.find((b) => b.id === c.board_id);
  const statusOptions = STATUSES.map((s) => {
    const m = moves.data?.data.find((x) => x.workflow_status === s);
    return { id: s, label: STATUS_LABEL[s], refused: m && !m.allowed ? (m.code ?? 'not allowed') : undefined };
  });

  return (
    <article className="page narrow card-page">
      <div className="crumbs">
        {board ? (
          <Link to="/boards/$slug" params={{ slug: board.slug }} search={{}}>
            {board.name}
          </Link>
        ) : (
          <Link to="/boards">Boards</Link>
        )}{' '}
        / <span className="mono">{c.ref}</span>
      </div>
      <h1 className="visually-hidden">
        {c.ref}: {c.title}
      </h1>
      <TitleEditor title={c.title} onSave={(title) => patch.mutate({ title })} />
      <div className="card-fields panel">
        <SelectField label="Status" value={c.workflow_status} options={statusOptions} onChange={(s) => patch.mutate({ workflow_status: s as Card['workflow_status'] })} testId="status-select" />
        <div className="row due-field">
          <DateField label="Due date" value={c.due_on} onChange={(d) => patch.mutate({ due_on: d })} />
          {c.due_on && (
            <button type="button" className="button small" onClick={() => patch.mutate({ due_on: null })}>
              Clear
            </button>
          )}
        </div>
        <SelectField
          label="Milestone"
          value={c.milestone ?? ''}
          options={[{ id: '', label: 'None' }, ...(milestones.data ?? []).map((m) => ({ id: m.ref, label: `${m.ref} · ${m.name}` }))]}
          onChange={(m) => patch.mutate({ milestone: m || null })}
        />
        <fieldset className="field assignee-picker">
          <legend>Assignees</legend>
          <div className="row">
            {(members.data ?? []).map((m) => {
              const on = c.assignee_ids.includes(m.id);
              return (
                <button
                  key={m.id}
                  type="button"
                  className={`chip${on ? ' on' : ''}`}
                  aria-pressed={on}
                  onClick={() => patch.mutate({ assignee_ids: on ? c.assignee_ids.filter((x) => x !== m.id) : [...c.assignee_ids, m.id] })}
                >
                  <span className="initials" aria-hidden="true">
                    {initials(m.name)}
                  </span>
                  {m.name}
                </button>
              );
            })}
          </div>
        </fieldset>
      </div>
      <Criteria card={c} />
      <p className="muted small" style={{ marginTop: 24 }}>
        Created {formatDateTime(c.created_at)} · updated {formatDateTime(c.updated_at)}
      </p>
    </article>
  );
}

function TitleEditor({ title, onSave }: { title: string; onSave: (t: string) => void }) {
  const [draft, setDraft] = useState(title);
  useEffect(() => setDraft(title), [title]);
  const save = (e?: FormEvent) => {
    e?.preventDefault();
    if (draft.trim() && draft.trim() !== title) onSave(draft.trim());
  };
  return (
    <form onSubmit={save} className="title-editor">
      <label htmlFor="card-title" className="visually-hidden">
        Title
      </label>
      {/* A textarea so a long title wraps on a phone; Enter saves, as in a one-line field. */}
      <textarea
        id="card-title"
        className="title-input"
        rows={1}
        value={draft}
        onChange={(e) => setDraft(e.target.value.replace(/\n/g, ' '))}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            save();
          }
        }}
        onBlur={() => save()}
        maxLength={300}
      />
    </form>
  );
}
