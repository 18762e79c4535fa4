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

export function useCreateCard(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ title, status }: { title: string; status: WorkflowStatus }) => {
      const card = await ok(api.POST('/cards', { body: { board: slug, title } }));
      if (status === 'backlog') return card;
      return ok(api.PATCH('/cards/{id}', { params: { path: { id: card.id } }, body: { workflow_status: status } }));
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['cards', slug] }),
  });
}
