import type { Todo } from '../../api/types';

export type GroupName = 'Overdue' | 'Today' | 'This week' | 'Later' | 'No date' | 'Done';
export const GROUPS: readonly GroupName[] = ['Overdue', 'Today', 'This week', 'Later', 'No date', 'Done'];

/** The group of an open todo, by the `due_state` tack gives it (in the caller's zone, as `due=` filters count). */
const GROUP_OF: Record<Todo['due_state'], GroupName> = { overdue: 'Overdue', today: 'Today', week: 'This week', later: 'Later', none: 'No date' };

const RANK = { urgent: 0, high: 1, medium: 2, low: 3 } as const;

/** Todos by when they are due, as tack says (`due_state`); done ones apart, latest first. */
export function groupTodos(todos: readonly Todo[]): Record<GroupName, Todo[]> {
  const out: Record<GroupName, Todo[]> = { Overdue: [], Today: [], 'This week': [], Later: [], 'No date': [], Done: [] };
  for (const t of todos) out[t.done ? 'Done' : GROUP_OF[t.due_state]].push(t);
  const byDue = (a: Todo, b: Todo) =>
    (a.due_on ?? '9999').localeCompare(b.due_on ?? '9999') || RANK[a.priority] - RANK[b.priority] || a.created_at.localeCompare(b.created_at);
  for (const g of GROUPS) if (g !== 'Done') out[g].sort(byDue);
  out.Done.sort((a, b) => (b.done_at ?? '').localeCompare(a.done_at ?? ''));
  return out;
}
