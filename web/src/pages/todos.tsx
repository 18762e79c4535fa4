import { useMemo } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import { FILTER_ACTIVE } from '../router';
import { useMayWrite, useMe, useToday } from '../api/queries';
import { usePageTitle } from '../ui/page-title';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { AddTodo } from './todos/add-todo';
import { GROUPS, groupTodos } from './todos/groups';
import { TodoRow } from './todos/todo-row';
import { useTodoActions, useTodos } from './todos/use-todos';

const route = getRouteApi('/todos');

export function TodosPage() {
  const { scope } = route.useSearch();
  const me = useMe();
  const today = useToday();
  const todos = useTodos(scope);
  const actions = useTodoActions();
  const mayWrite = useMayWrite();
  usePageTitle('Todos');
  const groups = useMemo(() => groupTodos(todos.data ?? []), [todos.data]);
  return (
    <section className="page narrow">
      <div className="page-head">
        <h1>Todos</h1>
        <div className="segmented" role="group" aria-label="Scope">
          <Link from="/todos" to="." search={{}} activeOptions={FILTER_ACTIVE} aria-current={scope ? undefined : 'page'}>
            All
          </Link>
          <Link from="/todos" to="." search={{ scope: 'personal' }} activeOptions={FILTER_ACTIVE} aria-current={scope === 'personal' ? 'page' : undefined}>
            Personal
          </Link>
          <Link from="/todos" to="." search={{ scope: 'org' }} activeOptions={FILTER_ACTIVE} aria-current={scope === 'org' ? 'page' : undefined}>
            Team
          </Link>
        </div>
      </div>
      {mayWrite && today !== undefined && <AddTodo today={today} defaultTeam={scope === 'org'} />}
      {me.data && <p className="muted small">Dates in {me.data.time_zone}.</p>}
      {todos.isError && !todos.data && <ErrorPanel error={todos.error} retry={() => void todos.refetch()} />}
      {/* Dates are written from getMe's today: the list waits for it, so no date changes wording once shown. */}
      {(todos.isPending || today === undefined) && !todos.isError && <Loading />}
      {todos.data &&
        today !== undefined &&
        GROUPS.map((g) =>
          groups[g].length === 0 ? null : (
            <section key={g} aria-labelledby={`group-${g.replace(/ /g, '-')}`} data-group={g}>
              <h2 id={`group-${g.replace(/ /g, '-')}`} className={g === 'Overdue' ? 'danger-text' : undefined}>
                {g} <span className="muted small">{groups[g].length}</span>
              </h2>
              <ul className="list list-box">
                {groups[g].map((t) => (
                  <TodoRow
                    key={t.id}
                    todo={t}
                    today={today}
                    onToggle={() => (t.done ? actions.reopen.mutate(t) : actions.complete.mutate(t))}
                    mayWrite={mayWrite}
                    onEdit={(body) => actions.edit.mutateAsync({ t, body })}
                    onDelete={() => actions.remove.mutate(t)}
                  />
                ))}
              </ul>
            </section>
          ),
        )}
      {todos.data?.length === 0 && <p className="muted">Nothing to do. Add a todo above.</p>}
    </section>
  );
}
