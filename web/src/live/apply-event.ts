import type { QueryClient } from '@tanstack/react-query';
import { keys } from '../api/queries';
import type { Me, TackEvent } from '../api/types';
import { cachedCard, cardOf, dropCard, putCard, refreshCard } from './patch-cards';
import { milestoneProgressChanged, patchCriteria, patchMilestones, patchTodos } from './patch-lists';

/**
 * What one event of the stream changes on screen: the query cache patched from the event's
 * `data` (the subject as its read operation answers it) where a page shows lists of it, and
 * only small reads invalidated otherwise (a card's history, a milestone's progress, settings).
 */
export function applyEvent(qc: QueryClient, event: TackEvent): void {
  const kind = event.type.slice(0, event.type.indexOf('.'));
  const ref = event.subject.ref;
  const invalidate = (queryKey: readonly unknown[]) => void qc.invalidateQueries({ queryKey });
  if (ref && (kind === 'card' || kind === 'criterion' || kind === 'comment')) {
    invalidate(keys.cardActivity(ref));
    if (kind === 'comment') invalidate(keys.cardComments(ref));
  }
  switch (kind) {
    case 'card':
      return applyCardEvent(qc, event);
    case 'criterion':
      patchCriteria(qc, event);
      // Its card's counts, and its milestone's progress, change with it.
      if (ref) void refreshCard(qc, ref).then((card) => milestoneProgressChanged(qc, [card?.milestone]));
      return;
    case 'todo':
      return patchTodos(qc, event);
    case 'milestone':
      return patchMilestones(qc, event);
    case 'board':
      invalidate(keys.boards);
      invalidate(['board']);
      return invalidate(['board-moves']);
    case 'member':
      invalidate(keys.members);
      if (event.subject.id === qc.getQueryData<Me>(keys.me)?.member.id) invalidate(keys.me);
      return;
    case 'snippet':
      invalidate(['snippets']);
      return invalidate(['snippet']);
    case 'token':
      return invalidate(['tokens']);
    case 'webhook':
      return invalidate(['webhooks']);
  }
}

const strings = (values: readonly unknown[] | undefined) => (values ?? []).filter((v): v is string => typeof v === 'string');

function applyCardEvent(qc: QueryClient, event: TackEvent): void {
  if (event.type === 'card.move_refused') return;
  const { id, ref } = event.subject;
  const card = cardOf(event);
  if (!card) {
    const before = cachedCard(qc, id);
    dropCard(qc, id, ref);
    if (before) milestoneProgressChanged(qc, [before.milestone]);
    else {
      void qc.invalidateQueries({ queryKey: ['milestone-status'] });
      void qc.invalidateQueries({ queryKey: keys.milestones });
    }
    return;
  }
  putCard(qc, card);
  const moved = 'workflow_status' in event.changes;
  // Where it may go next depends on where it is (and on the gate).
  if (moved) void qc.invalidateQueries({ queryKey: keys.moves(card.ref) });
  if (event.type === 'card.created' || moved || 'milestone' in event.changes) {
    milestoneProgressChanged(qc, [card.milestone, ...strings(event.changes.milestone)]);
  }
}
