import type { Todo } from '../../api/types';
import { addDays } from '../../lib/dates';

export type GroupName = 'Overdue' | 'Today' | 'This week' | 'Later' | 'Done';
export const GROUPS: readonly GroupName[] = ['Overdue', 'Today', 'This week', 'Later', 'Done'];

const RANK = { urgent: 0, high: 1, medium: 2, low: 3 } as const;

/**
 * Todos by when they are due, in the caller's time zone (`today` is their local date): this
 * week is the six days after today, as the API's `due=week` counts them.
 */
export function groupTodos(todos: readonly Todo[], today: string): Record<GroupName, Todo[]> {
  const weekEnd = addDays(today, 6);
  const out: Record<GroupName, Todo[]> = { Overdue: [], Today: [], 'This week': [], Later: [], Done: [] };
  for (const t of todos) {
    if (t.done) out.Done.push(t);
    else if (t.due_on === null) out.Later.push(t);
    else if (t.due_on < today) out.Overdue.push(t);
    else if (t.due_on === today) out.Today.push(t);
    else if (t.due_on <= weekEnd) out['This week'].push(t);
    else out.Later.push(t);
  }
  const byDue = (a: Todo, b: Todo) =>
    (a.due_on ?? '9999') .localeCompare(b.due_on ?? '9999') || RANK[a.priority] - RANK[b.priority] || a.created_at.localeCompare(b.created_at);
  for (const g of GROUPS) if (g !== 'Done') out[g].sort(byDue);
  out.Done.sort((a, b) => (b.done_at ?? '').localeCompare(a.done_at ?? ''));
  return out;
}
