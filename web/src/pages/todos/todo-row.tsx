import { useState, type FormEvent } from 'react';
import { Link } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, ok } from '../../api/client';
import type { Priority, Todo } from '../../api/types';
import { RelativeDate } from '../../lib/relative-date';
import { DateField } from '../../ui/date-field';
import { ConfirmDialog, FormDialog } from '../../ui/dialogs';
import { SelectField } from '../../ui/select-field';
import { PRIORITY_OPTIONS } from './add-todo';
import type { TodoEdit } from './use-todos';

interface Props {
  todo: Todo;
  /** The caller's today (getMe), for how dates are written; undefined until known. */
  today: string | undefined;
  onToggle: () => void;
  onEdit: (body: TodoEdit) => void;
  onDelete: () => void;
}

export function TodoRow({ todo, today, onToggle, onEdit, onDelete }: Props) {
  const overdue = todo.due_state === 'overdue';
  return (
    <li id={todo.id} data-todo={todo.id} className={todo.done ? 'todo done' : 'todo'}>
      <input type="checkbox" checked={todo.done} onChange={onToggle} aria-label={`${todo.done ? 'Reopen' : 'Complete'}: ${todo.title}`} />
      <div className="grow">
        <span className={todo.done ? 'done-text' : undefined}>{todo.title}</span>
        <div className="row todo-meta">
          <span className={`chip prio-${todo.priority}`}>{todo.priority}</span>
          {todo.due_on && (
            <span className={`chip${overdue ? ' danger' : ''}`} title={overdue ? 'Overdue' : 'Due'}>
              {overdue && <span className="visually-hidden">Overdue, </span>}
              <RelativeDate date={todo.due_on} today={today} prefix="Due " />
            </span>
          )}
          <span className="chip">{todo.org_id ? 'Team' : 'Personal'}</span>
          {todo.card_id && <CardLink id={todo.card_id} />}
          {todo.source_url && (
            <a className="chip" href={todo.source_url} target="_blank" rel="noreferrer">
              Slack message<span className="visually-hidden"> this todo came from</span>
            </a>
          )}
        </div>
      </div>
      <EditTodo todo={todo} onSave={onEdit} />
      <ConfirmDialog
        trigger={
          <Button className="icon-button" aria-label={`Delete ${todo.title}`}>
            ×
          </Button>
        }
        title="Delete this todo?"
        confirmLabel="Delete"
        onConfirm={onDelete}
      >
        <p>
          “{todo.title}” will be gone.{todo.card_id ? ' The card keeps its criterion.' : ''}
        </p>
      </ConfirmDialog>
    </li>
  );
}

/** The card a todo mirrors a criterion of, by its ref. */
function CardLink({ id }: { id: string }) {
  const card = useQuery({ queryKey: ['card-by-id', id], queryFn: () => ok(api.GET('/cards/{id}', { params: { path: { id } } })), staleTime: 60_000, retry: false });
  if (!card.data) return null;
  return (
    <Link to="/cards/$ref" params={{ ref: card.data.ref }} className="chip accent" title={card.data.title}>
      {card.data.ref}
    </Link>
  );
}

function EditTodo({ todo, onSave }: { todo: Todo; onSave: (body: TodoEdit) => void }) {
  const [title, setTitle] = useState(todo.title);
  const [priority, setPriority] = useState<Priority>(todo.priority);
  const [due, setDue] = useState<string | null>(todo.due_on);
  return (
    <FormDialog
      title="Edit todo"
      onOpenChange={(open) => {
        if (open) {
          setTitle(todo.title);
          setPriority(todo.priority);
          setDue(todo.due_on);
        }
      }}
      trigger={
        <Button className="icon-button" aria-label={`Edit ${todo.title}`}>
          ✎
        </Button>
      }
    >
      {(close) => {
        const submit = (e: FormEvent) => {
          e.preventDefault();
          onSave({ title: title.trim(), priority, due_on: due });
          close();
        };
        return (
          <form onSubmit={submit}>
            <div className="field">
              <label htmlFor={`edit-${todo.id}`}>Title</label>
              <input id={`edit-${todo.id}`} value={title} onChange={(e) => setTitle(e.target.value)} maxLength={300} required />
            </div>
            <div className="row">
              <SelectField label="Priority" value={priority} options={PRIORITY_OPTIONS} onChange={(p) => setPriority(p as Priority)} />
              <DateField label="Due date" value={due} onChange={setDue} />
              {due && (
                <button type="button" className="button small" onClick={() => setDue(null)}>
                  Clear date
                </button>
              )}
            </div>
            <div className="dialog-actions">
              <button type="button" className="button" onClick={close}>
                Cancel
              </button>
              <button type="submit" className="button primary">
                Save
              </button>
            </div>
          </form>
        );
      }}
    </FormDialog>
  );
}
