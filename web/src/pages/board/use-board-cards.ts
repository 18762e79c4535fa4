import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

export function useBoardCards(slug: string, search: BoardSearch) {
  return useQuery(boardCardsQuery(slug, search));
}
import { api, ok } from '../../api/client';
import { boardCardsQuery, keys } from '../../api/queries';
import type { Card, WorkflowStatus } from '../../api/types';
import type { BoardSearch } from '../../router';

/**
 * Moves a card at once on screen; when tack refuses (the gate, a conflict), the card goes back
 * and the API's message is shown (the MutationCache toasts it).
 */
export function useMoveCard(slug: string, search: BoardSearch) {
  const qc = useQueryClient();
  const key = keys.cards(slug, search);
  return useMutation({
    mutationFn: ({ card, to }: { card: Card; to: WorkflowStatus }) =>
      ok(api.PATCH('/cards/{id}', { params: { path: { id: card.id } }, body: { workflow_status: to } })),
    onMutate: async ({ card, to }) => {
      await qc.cancelQueries({ queryKey: key });
      const before = qc.getQueryData<Card[]>(key);
      qc.setQueryData<Card[]>(key, (cards) => cards?.map((c) => (c.id === card.id ? { ...c, workflow_status: to } : c)));
      return { before };
    },
    onError: (_err, _vars, context) => {
      if (context?.before) qc.setQueryData(key, context.before);
    },
    onSuccess: (card) => {
      qc.setQueryData<Card[]>(key, (cards) => cards?.map((c) => (c.id === card.id ? card : c)));
      qc.setQueryData(keys.card(card.ref), card);
    },
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: ['cards', slug] });
      void qc.invalidateQueries({ queryKey: keys.milestones });
    },
  });
}

/**
 * Creates a card in its column: one write (createCard with `workflow_status`), with the
 * form's Idempotency-Key, so a retried submit never makes a second card.
 */
export function useCreateCard(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ title, status, key }: { title: string; status: WorkflowStatus; key: string }) =>
      ok(api.POST('/cards', { params: { header: { 'Idempotency-Key': key } }, body: { board: slug, title, workflow_status: status } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['cards', slug] }),
  });
}
