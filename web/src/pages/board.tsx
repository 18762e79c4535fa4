import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type DragStartEvent,
} from '@dnd-kit/core';
import { api, ok } from '../api/client';
import { boardMovesQuery, boardQuery, keys, useMayWrite, useMembers, useMilestones, useToday } from '../api/queries';
import { asApiError } from '../api/errors';
import { STATUSES, STATUS_LABEL, type Card, type Member, type WorkflowStatus } from '../api/types';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { LockIcon } from '../ui/icons';
import { usePageTitle } from '../ui/page-title';
import { notifyUndo } from '../ui/toast-queue';
import { CardTile } from './board/card-tile';
import { Column } from './board/column';
import { columnKeyboardCoordinates } from './board/keyboard';
import { FILTER_ACTIVE, type BoardSearch } from '../router';
import { useBoardCards, useCreateCard, useMoveCard } from './board/use-board-cards';

const route = getRouteApi('/boards/$slug');

/** Puts the focus on a card's handle, wherever its tile now is. */
function focusHandle(ref: string): void {
  document.querySelector<HTMLElement>(`button.drag-handle[data-card="${CSS.escape(ref)}"]`)?.focus();
}

export function BoardPage() {
  const { slug } = route.useParams();
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const today = useToday();
  const board = useQuery(boardQuery(slug));
  const cards = useBoardCards(slug, search);
  const members = useMembers();
  const milestones = useMilestones();
  const move = useMoveCard(slug, search);
  const create = useCreateCard(slug);
  const mayWrite = useMayWrite();
  const [active, setActive] = useState<Card | null>(null);
  // What the screen reader hears of a move: said once tack has answered, never before.
  const [said, setSaid] = useState('');
  // The card dropped by keyboard keeps the focus, in its new column (or back in its old one).
  const refocus = useRef<string | null>(null);
  usePageTitle(board.data?.name ?? slug);
  const go = useNavigate();
  const openCard = useCallback((ref: string) => void go({ to: '/cards/$ref', params: { ref } }), [go]);

  const memberMap = useMemo(() => new Map<string, Member>((members.data ?? []).map((m) => [m.id, m])), [members.data]);
  const byStatus = useMemo(() => {
    const out: Record<WorkflowStatus, Card[]> = { backlog: [], in_progress: [], in_review: [], done: [] };
    for (const c of cards.data ?? []) out[c.workflow_status].push(c);
    return out;
  }, [cards.data]);

  // Where this caller may put a card of this board (create it in, or move it to), from the
  // API (listBoardMoves): the board's gate for them, and what a viewer may not do at all.
  const moves = useQuery(boardMovesQuery(slug));
  const moveTo = useCallback((status: WorkflowStatus) => moves.data?.data.find((m) => m.workflow_status === status), [moves.data]);
  const doneMove = moveTo('done');
  // A viewer (or a read-only token) sees no handle: there is nowhere they may move a card.
  const mayMove = mayWrite && (moves.data?.data.some((m) => m.allowed) ?? false);

  useEffect(() => {
    if (refocus.current) focusHandle(refocus.current);
  }, [cards.data]);

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: columnKeyboardCoordinates }),
  );

  const onDragStart = useCallback((e: DragStartEvent) => setActive((e.active.data.current as { card: Card }).card), []);
  const onDragEnd = useCallback(
    (e: DragEndEvent) => {
      setActive(null);
      const card = (e.active.data.current as { card: Card }).card;
      const to = e.over?.id as WorkflowStatus | undefined;
      const byKeyboard = typeof KeyboardEvent !== 'undefined' && e.activatorEvent instanceof KeyboardEvent;
      refocus.current = byKeyboard ? card.ref : null;
      if (!to || to === card.workflow_status) return;
      setSaid(`Moving ${card.ref} to ${STATUS_LABEL[to]}…`);
      move.mutate(
        { card, to },
        {
          onSuccess: (moved) => {
            setSaid(`${card.ref} moved to ${STATUS_LABEL[to]}.`);
            notifyUndo(`${card.ref} moved to ${STATUS_LABEL[to]}`, () =>
              move.mutate({ card: moved, to: card.workflow_status }, { onSuccess: () => setSaid(`${card.ref} moved back to ${STATUS_LABEL[card.workflow_status]}.`) }),
            );
          },
          onError: (err) => setSaid(`${card.ref} was not moved: ${asApiError(err).userMessage}`),
          onSettled: () => {
            // Back in place after a refusal: the focus follows it there too.
            const ref = refocus.current;
            if (ref) requestAnimationFrame(() => focusHandle(ref));
            refocus.current = null;
          },
        },
      );
    },
    [move],
  );

  const announcements = useMemo<Announcements>(() => {
    const name = (id: unknown) => (cards.data ?? []).find((c) => c.id === id)?.ref ?? 'card';
    const col = (id: unknown) => STATUS_LABEL[id as WorkflowStatus] ?? 'no column';
    return {
      onDragStart: ({ active: a }) => `Picked up ${name(a.id)}. Use the arrow keys to choose a column, space to drop, escape to cancel.`,
      onDragOver: ({ active: a, over }) => `${name(a.id)} is over ${col(over?.id)}.`,
      // The move is announced when tack has answered (the live region below), not on the drop.
      onDragEnd: ({ active: a, over }) => (over ? `${name(a.id)} dropped on ${col(over.id)}.` : `${name(a.id)} dropped outside the columns.`),
      onDragCancel: ({ active: a }) => `Moving ${name(a.id)} was cancelled.`,
    };
  }, [cards.data]);

  if (board.isError && !board.data) return <ErrorPanel error={board.error} retry={() => void board.refetch()} />;

  const gateBadge = board.data?.gated ? (
    <span
      className={`chip gate${doneMove && !doneMove.allowed ? ' danger' : ''}`}
      title={doneMove && !doneMove.allowed ? `You cannot move cards here (${doneMove.code ?? 'refused'})` : 'Gated: a move to Done needs a human'}
      data-testid="done-gate"
    >
      <LockIcon /> {doneMove && !doneMove.allowed ? 'Locked for you' : 'Gated'}
    </span>
  ) : null;

  return (
    <section className="board-page">
      <div className="page-head">
        <div>
          <div className="crumbs">
            <Link to="/boards">Boards</Link> /
          </div>
          <h1>{board.data?.name ?? slug}</h1>
        </div>
        <div className="row filters" role="group" aria-label="Filters">
          <div className="segmented" role="group" aria-label="Assignee">
            <Link from="/boards/$slug" to="." search={(s: BoardSearch) => ({ ...s, assignee: undefined })} activeOptions={FILTER_ACTIVE} aria-current={search.assignee ? undefined : 'page'}>
              Everyone
            </Link>
            <Link from="/boards/$slug" to="." search={(s: BoardSearch) => ({ ...s, assignee: 'me' as const })} activeOptions={FILTER_ACTIVE} aria-current={search.assignee === 'me' ? 'page' : undefined}>
              Assigned to me
            </Link>
          </div>
          <label htmlFor="milestone-filter" className="visually-hidden">
            Milestone
          </label>
          <select
            id="milestone-filter"
            value={search.milestone ?? ''}
            onChange={(e) => void navigate({ to: '.', search: (s: BoardSearch) => ({ ...s, milestone: e.target.value || undefined }) })}
          >
            <option value="">All milestones</option>
            {(milestones.data ?? []).map((m) => (
              <option key={m.id} value={m.ref}>
                {m.ref} · {m.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      {cards.isError && !cards.data && <ErrorPanel error={cards.error} retry={() => void cards.refetch()} />}
      {/* Due dates are written from getMe's today: the cards wait for it, so no date changes wording once shown. */}
      {cards.isPending || today === undefined ? (
        <Loading label="Loading cards…" />
      ) : (
        <DndContext
          sensors={sensors}
          onDragStart={onDragStart}
          onDragEnd={onDragEnd}
          onDragCancel={() => setActive(null)}
          accessibility={{
            announcements,
            screenReaderInstructions: { draggable: 'To move a card, press space or enter, then the arrow keys to choose a column, then space or enter to drop it. Escape cancels.' },
          }}
        >
          <div className="columns" data-testid="board">
            {STATUSES.map((status) => (
              <Column
                key={status}
                status={status}
                count={byStatus[status].length}
                badge={status === 'done' ? gateBadge : undefined}
                refused={active !== null && active.workflow_status !== status && moveTo(status)?.allowed === false}
                mayCreate={mayWrite && moveTo(status)?.allowed === true}
                onCreate={(title, key) => create.mutateAsync({ title, status, key })}
              >
                {byStatus[status].map((card) => (
                  <CardTile key={card.id} card={card} members={memberMap} today={today} onOpen={openCard} readOnly={!mayMove} />
                ))}
              </Column>
            ))}
          </div>
          <p className="visually-hidden" role="status" aria-live="polite" data-testid="move-status">
            {said}
          </p>
          <DragOverlay dropAnimation={null}>{active ? <CardTile card={active} members={memberMap} today={today} overlay /> : null}</DragOverlay>
        </DndContext>
      )}
    </section>
  );
}
