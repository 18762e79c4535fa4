import { lazy, Suspense, useState } from 'react';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { cardQuery, keys, useBoards, useMayWrite, useMembers, useMilestones } from '../api/queries';
import { STATUSES, STATUS_LABEL, type Card } from '../api/types';
import { formatDate, formatDateTime } from '../lib/dates';
import { initials } from '../lib/people';
import { DateField } from '../ui/date-field';
import { loadChunk } from '../chunks';
import { Quiet } from '../ui/quiet-boundary';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { InlineText } from '../ui/inline-text';
import { shortTitle, usePageTitle } from '../ui/page-title';
import { SelectField } from '../ui/select-field';
import { notify, notifyUndo } from '../ui/toast-queue';
import { Criteria } from './card/criteria';
import { CardLinks } from './card/links';

// The description and the discussion render Markdown (react-markdown): loaded after the card itself, off its
// first load, but asked for as soon as this page's code runs, so they are usually there when the card's data is.
const prefetch = () => Promise.all([import('./card/description'), import('./card/timeline')]).catch(() => undefined);
void prefetch();
const Description = lazy(() => import('./card/description').then((m) => ({ default: m.Description })));
const Timeline = lazy(() => import('./card/timeline').then((m) => ({ default: m.Timeline })));
// Loaded when Delete card is pressed (React Aria's dialog and buttons are not needed before); made again after a failed load.
const loadDeleteDialog = () => lazy(() => loadChunk(() => import('./card/delete-card')).then((m) => ({ default: m.DeleteCardDialog })));
let DeleteCardDialog = loadDeleteDialog();

const route = getRouteApi('/cards/$ref');

type CardPatch = { title?: string; description?: string | null; workflow_status?: Card['workflow_status']; due_on?: string | null; assignee_ids?: string[]; milestone?: string | null };

export function CardPage() {
  const { ref } = route.useParams();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const mayWrite = useMayWrite();
  const card = useQuery(cardQuery(ref));
  const moves = useQuery({ queryKey: keys.moves(ref), queryFn: () => ok(api.GET('/cards/{id}/moves', { params: { path: { id: ref } } })) });
  const members = useMembers();
  const milestones = useMilestones();
  const boards = useBoards();
  const [deleting, setDeleting] = useState(false);
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
      void qc.invalidateQueries({ queryKey: keys.moves(ref) });
      void qc.invalidateQueries({ queryKey: keys.milestones });
      void qc.invalidateQueries({ queryKey: keys.cardActivity(ref) });
    },
  });
  const remove = useMutation({
    mutationFn: (c: Card) => ok(api.DELETE('/cards/{id}', { params: { path: { id: c.id } } })),
    onSuccess: (_r, c) => {
      notify(`${c.ref} deleted`);
      qc.removeQueries({ queryKey: keys.card(ref) });
      void qc.invalidateQueries({ queryKey: ['cards'] });
      void qc.invalidateQueries({ queryKey: keys.milestones });
      const board = boards.data?.find((b) => b.id === c.board_id);
      void (board ? navigate({ to: '/boards/$slug', params: { slug: board.slug }, search: {} }) : navigate({ to: '/boards' }));
    },
  });
  usePageTitle(card.data ? `${card.data.ref} ${shortTitle(card.data.title)}` : ref);

  if (card.isError && !card.data) return <ErrorPanel error={card.error} retry={() => void card.refetch()} />;
  if (!card.data) return <Loading />;
  const c = card.data;
  const board = boards.data?.find((b) => b.id === c.board_id);
  const statusOptions = STATUSES.map((s) => {
    const m = moves.data?.data.find((x) => x.workflow_status === s);
    return { id: s, label: STATUS_LABEL[s], refused: m && !m.allowed ? (m.code ?? 'not allowed') : undefined };
  });
  // A move says where it went, with Undo (the move back), once tack has said yes.
  const moveTo = (to: Card['workflow_status']) => {
    const from = c.workflow_status;
    patch.mutate({ workflow_status: to }, { onSuccess: () => notifyUndo(`${c.ref} moved to ${STATUS_LABEL[to]}`, () => patch.mutate({ workflow_status: from })) });
  };
  const milestone = milestones.data?.find((m) => m.ref === c.milestone);

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
      {mayWrite ? (
        <>
          <h1 className="visually-hidden">
            {c.ref}: {c.title}
          </h1>
          <div className="title-editor">
            <InlineText id="card-title" label="Title" value={c.title} multiline className="title-input" onSave={(title) => patch.mutateAsync({ title })} />
          </div>
        </>
      ) : (
        <h1 className="card-title">
          <span className="visually-hidden">{c.ref}: </span>
          {c.title}
        </h1>
      )}
      {mayWrite ? (
        <div className="card-fields panel">
          <SelectField label="Status" value={c.workflow_status} options={statusOptions} onChange={(s) => moveTo(s as Card['workflow_status'])} testId="status-select" />
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
      ) : (
        <dl className="card-fields panel card-facts" data-testid="card-facts">
          <div>
            <dt>Status</dt>
            <dd>{STATUS_LABEL[c.workflow_status]}</dd>
          </div>
          <div>
            <dt>Due date</dt>
            <dd>{c.due_on ? formatDate(c.due_on) : 'None'}</dd>
          </div>
          <div>
            <dt>Milestone</dt>
            <dd>{milestone ? `${milestone.ref} · ${milestone.name}` : (c.milestone ?? 'None')}</dd>
          </div>
          <div className="assignee-picker">
            <dt>Assignees</dt>
            <dd>{c.assignee_ids.map((id) => members.data?.find((m) => m.id === id)?.name ?? 'Unknown member').join(', ') || 'Nobody'}</dd>
          </div>
        </dl>
      )}
      <Suspense fallback={null}>
        <Description card={c} members={members.data} mayWrite={mayWrite} onSave={(description) => patch.mutateAsync({ description })} />
      </Suspense>
      <Criteria card={c} mayWrite={mayWrite} />
      <Suspense fallback={null}>
        <Timeline card={c} mayWrite={mayWrite} />
      </Suspense>
      <CardLinks card={c} />
      <div className="row spread card-foot">
        <p className="muted small">
          Created {formatDateTime(c.created_at)} · updated {formatDateTime(c.updated_at)}
        </p>
        {mayWrite && (
          <button type="button" className="button danger" aria-haspopup="dialog" aria-expanded={deleting} onClick={() => setDeleting(true)}>
            Delete card
          </button>
        )}
        {deleting && (
          <Quiet
            onError={() => {
              DeleteCardDialog = loadDeleteDialog();
              setDeleting(false);
            }}
          >
            <Suspense fallback={null}>
              <DeleteCardDialog card={c} onConfirm={() => remove.mutate(c)} onClose={() => setDeleting(false)} />
            </Suspense>
          </Quiet>
        )}
      </div>
    </article>
  );
}
