import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { useMe } from '../../api/queries';
import { PRIORITIES, type Priority } from '../../api/types';
import { addDays } from '../../lib/dates';
import { DateField } from '../../ui/date-field';
import { FieldErrors } from '../../ui/field-errors';
import { SelectField } from '../../ui/select-field';

const PRIORITY_OPTIONS = PRIORITIES.map((p) => ({ id: p, label: p[0]!.toUpperCase() + p.slice(1) }));
export { PRIORITY_OPTIONS };

/**
 * Title, priority and date (today, tomorrow, or the picker); personal or for the team. `today`
 * is the caller's (getMe); a new todo is due today.
 */
export function AddTodo({ today, defaultTeam }: { today: string; defaultTeam: boolean }) {
  const me = useMe();
  const qc = useQueryClient();
  const [title, setTitle] = useState('');
  const [priority, setPriority] = useState<Priority>('medium');
  const [due, setDue] = useState<string | null | undefined>(undefined);
  // Due today by default: the caller's today, as getMe says it.
  const dueOn = due === undefined ? today : due;
  const [team, setTeam] = useState(defaultTeam);
  const add = useMutation({
    meta: { inline: true },
    mutationFn: () =>
      ok(api.POST('/todos', { body: { title: title.trim(), priority, ...(dueOn ? { due_on: dueOn } : {}), ...(team && me.data ? { org_id: me.data.org.id } : {}) } })),
    onSuccess: () => {
      setTitle('');
      void qc.invalidateQueries({ queryKey: ['todos'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (title.trim()) add.mutate();
  };
  const tomorrow = addDays(today, 1);
  return (
    <form className="panel add-todo" onSubmit={submit} aria-label="Add a todo">
      <div className="row">
        <label htmlFor="todo-title" className="visually-hidden">
          Todo
        </label>
        <input id="todo-title" className="grow" value={title} onChange={(e) => setTitle(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && setTitle('')} placeholder="What needs doing?" maxLength={300} />
        <button type="submit" className="button primary" disabled={add.isPending || !title.trim()}>
          Add todo
        </button>
      </div>
      <div className="row add-todo-options">
        <SelectField label="Priority" hideLabel value={priority} options={PRIORITY_OPTIONS} onChange={(p) => setPriority(p as Priority)} />
        <div className="segmented" role="group" aria-label="Due">
          <button type="button" aria-pressed={dueOn === null} onClick={() => setDue(null)}>
            No date
          </button>
          <button type="button" aria-pressed={dueOn === today} onClick={() => setDue(today)}>
            Today
          </button>
          <button type="button" aria-pressed={dueOn === tomorrow} onClick={() => setDue(tomorrow)}>
            Tomorrow
          </button>
        </div>
        <DateField label="Due date" hideLabel value={dueOn} onChange={setDue} />
        <div className="segmented" role="group" aria-label="Visible to">
          <button type="button" aria-pressed={!team} onClick={() => setTeam(false)}>
            Personal
          </button>
          <button type="button" aria-pressed={team} onClick={() => setTeam(true)}>
            Team
          </button>
        </div>
      </div>
      <FieldErrors error={add.error} />
    </form>
  );
}
