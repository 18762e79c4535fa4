import type { QueryClient } from '@tanstack/react-query';
import { byEndDate, keys } from '../api/queries';
import type { Criterion, Me, Milestone, TackEvent, Todo } from '../api/types';

/** Criteria, todos and milestones in the query cache, patched from the stream's events. */

/** Replaces the item with the same id, or adds it (`add`: where); without it, removes it. */
function upsert<T extends { id: string }>(list: readonly T[], id: string, item: T | null, add: (list: T[], item: T) => T[]): T[] {
  if (!item) return list.filter((x) => x.id !== id);
  return list.some((x) => x.id === id) ? list.map((x) => (x.id === id ? item : x)) : add([...list], item);
}

/** A card's checklist (by position). A move of one shifts the others: that list is read again. */
export function patchCriteria(qc: QueryClient, event: TackEvent): void {
  const ref = event.subject.ref;
  if (!ref) return;
  const key = keys.criteria(ref);
  const list = qc.getQueryData<Criterion[]>(key);
  if (!list) return;
  if ('position' in event.changes) return void qc.invalidateQueries({ queryKey: key, exact: true });
  const item = event.data as Criterion | null;
  qc.setQueryData<Criterion[]>(key, upsert(list, event.subject.id, item, (l, c) => [...l, c].sort((a, b) => a.position - b.position)));
}

type Scope = 'all' | 'personal' | 'org';
const inScope = (todo: Todo, scope: Scope) => scope === 'all' || (scope === 'org') === (todo.org_id !== undefined && todo.org_id !== null);

/**
 * The todo lists (All, Personal, Team). A todo already shown is replaced or removed; a new one
 * joins the lists of its scope when the caller made it (a team todo's events reach the whole
 * team, and its owner is the member who made it).
 */
export function patchTodos(qc: QueryClient, event: TackEvent): void {
  const todo = event.data as Todo | null;
  // Only createTodo makes a todo, always the caller's own (a ticked criterion may complete another member's).
  const mine = event.type === 'todo.created' && event.actor.member_id !== null && event.actor.member_id === qc.getQueryData<Me>(keys.me)?.member.id;
  for (const [key, list] of qc.getQueriesData<Todo[]>({ queryKey: ['todos'] })) {
    if (!list) continue;
    const shown = list.some((t) => t.id === event.subject.id);
    if (!shown && !(todo && mine && inScope(todo, key[1] as Scope))) continue;
    qc.setQueryData<Todo[]>(key, upsert(list, event.subject.id, todo && inScope(todo, key[1] as Scope) ? todo : null, (l, t) => [t, ...l]));
  }
}

/** The milestones list and the milestone's page. */
export function patchMilestones(qc: QueryClient, event: TackEvent): void {
  const milestone = event.data as Milestone | null;
  qc.setQueryData<Milestone[]>(keys.milestones, (list) => list && byEndDate(upsert(list, event.subject.id, milestone, (l, m) => [...l, m])));
  if (event.subject.ref) void qc.invalidateQueries({ queryKey: keys.milestoneStatus(event.subject.ref) });
  if (milestone && milestone.ref !== event.subject.ref) void qc.invalidateQueries({ queryKey: keys.milestoneStatus(milestone.ref) });
}

/** A card joined, left or changed in a milestone: its progress (which no card event carries) is read again. */
export function milestoneProgressChanged(qc: QueryClient, refs: Iterable<string | null | undefined>): void {
  let any = false;
  for (const ref of new Set(refs)) {
    if (!ref) continue;
    any = true;
    void qc.invalidateQueries({ queryKey: keys.milestoneStatus(ref) });
  }
  if (any) void qc.invalidateQueries({ queryKey: keys.milestones });
}
