import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { todosQuery } from '../../api/queries';
import type { Priority, Todo } from '../../api/types';
import { notifyUndo } from '../../ui/toast-queue';

type Scope = 'personal' | 'org' | undefined;

/** Open todos (every page) and the latest done ones. */
export function useTodos(scope: Scope) {
  return useQuery(todosQuery(scope));
}

export interface TodoEdit {
  title?: string;
  priority?: Priority;
  due_on?: string | null;
}

/**
 * Complete, reopen, edit and delete, shown at once and undone if tack refuses. Completing and
 * deleting offer Undo once tack has said yes: reopen it, or make it again as it was.
 */
export function useTodoActions() {
  const qc = useQueryClient();
  const optimistic = async (id: string, change: (t: Todo) => Todo | null) => {
    await qc.cancelQueries({ queryKey: ['todos'] });
    const before = qc.getQueriesData<Todo[]>({ queryKey: ['todos'] });
    qc.setQueriesData<Todo[]>({ queryKey: ['todos'] }, (rows) =>
      rows?.flatMap((t) => {
        if (t.id !== id) return [t];
        const next = change(t);
        return next ? [next] : [];
      }),
    );
    return { before };
  };
  const common = {
    onError: (_e: unknown, _v: unknown, ctx: { before: [readonly unknown[], Todo[] | undefined][] } | undefined) => {
      for (const [key, data] of ctx?.before ?? []) qc.setQueryData(key, data);
    },
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: ['todos'] });
      // A todo that mirrors a criterion ticks it: the card's counts change.
      void qc.invalidateQueries({ queryKey: ['criteria'] });
      void qc.invalidateQueries({ queryKey: ['card'] });
      void qc.invalidateQueries({ queryKey: ['cards'] });
    },
  };
  const complete = useMutation({
    mutationFn: (t: Todo) => ok(api.POST('/todos/{id}/done', { params: { path: { id: t.id } } })),
    onMutate: (t: Todo) => optimistic(t.id, (x) => ({ ...x, done: true, done_at: new Date().toISOString() })),
    onSuccess: (_r: unknown, t: Todo) => notifyUndo(`Completed “${t.title}”`, () => reopen.mutate(t)),
    ...common,
  });
  const reopen = useMutation({
    mutationFn: (t: Todo) => ok(api.POST('/todos/{id}/reopen', { params: { path: { id: t.id } } })),
    onMutate: (t: Todo) => optimistic(t.id, (x) => ({ ...x, done: false, done_at: null })),
    ...common,
  });
  const edit = useMutation({
    mutationFn: ({ t, body }: { t: Todo; body: TodoEdit }) => ok(api.PATCH('/todos/{id}', { params: { path: { id: t.id } }, body })),
    onMutate: ({ t, body }: { t: Todo; body: TodoEdit }) => optimistic(t.id, (x) => ({ ...x, ...body })),
    ...common,
  });
  const remove = useMutation({
    mutationFn: (t: Todo) => ok(api.DELETE('/todos/{id}', { params: { path: { id: t.id } } })),
    onMutate: (t: Todo) => optimistic(t.id, () => null),
    onSuccess: (_r: unknown, t: Todo) => notifyUndo(`Deleted “${t.title}”`, () => recreate.mutate(t)),
    ...common,
  });
  const recreate = useMutation({
    mutationFn: (t: Todo) =>
      ok(
        api.POST('/todos', {
          body: {
            title: t.title,
            priority: t.priority,
            ...(t.due_on ? { due_on: t.due_on } : {}),
            ...(t.org_id ? { org_id: t.org_id } : {}),
            ...(t.card_id && t.criterion_id ? { card_id: t.card_id, criterion_id: t.criterion_id } : {}),
            ...(t.source_url ? { source_url: t.source_url } : {}),
          },
        }),
      ),
    onSettled: common.onSettled,
  });
  return { complete, reopen, edit, remove };
}
