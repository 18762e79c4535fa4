import { useState, type FormEvent } from 'react';
import { Link } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, ok } from '../../api/client';
import { keys } from '../../api/queries';
import type { Priority, Todo } from '../../api/types';
import { RelativeDate } from '../../lib/relative-date';
import { DateField } from '../../ui/date-field';
import { ConfirmDialog, FormDialog } from '../../ui/dialogs';
import { SelectField } from '../../ui/select-field';
import { PRIORITY_OPTIONS } from './add-todo';
import type { TodoEdit } from './use-todos';

interface Props {
  todo: Todo;
  /** The caller's today (getMe), for how dates are written. */
  today: string;
  onToggle: () => void;
  onEdit: (body: TodoEdit) => Promise<unknown>;
  onDelete: () => void;
  /** False for a caller who may not write: the row is read-only. */
  mayWrite: boolean;
}

export function TodoRow({ todo, today, onToggle, onEdit, onDelete, mayWrite }: Props) {
  const overdue = todo.due_state === 'overdue';
  return (
    <li id={todo.id} data-todo={todo.id} className={todo.done ? 'todo done' : 'todo'}>
      {mayWrite ? (
        <input type="checkbox" checked={todo.done} onChange={onToggle} aria-label={`${todo.done ? 'Reopen' : 'Complete'}: ${todo.title}`} />
      ) : (
        todo.done && <span className="visually-hidden">Done: </span>
      )}
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
      {mayWrite && <EditTodo todo={todo} onSave={onEdit} />}
      {mayWrite && <ConfirmDialog
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
      </ConfirmDialog>}
    </li>
  );
}

/** The card a todo mirrors a criterion of, by its ref. */
function CardLink({ id }: { id: string }) {
  const card = useQuery({ queryKey: keys.cardById(id), queryFn: () => ok(api.GET('/cards/{id}', { params: { path: { id } } })), staleTime: 60_000, retry: false });
  if (!card.data) return null;
  return (
    <Link to="/cards/$ref" params={{ ref: card.data.ref }} className="chip accent" title={card.data.title}>
      {card.data.ref}
    </Link>
  );
}

interface Draft {
  title: string;
  priority: Priority;
  due: string | null;
}

/** The dialog's fields, kept in sessionStorage while it is open: a reload or a failed save loses nothing. */
const draftKey = (id: string) => `tack:draft:todo:${id}`;
function readDraft(todo: Todo): Draft {
  try {
    const kept = sessionStorage.getItem(draftKey(todo.id));
    if (kept) return JSON.parse(kept) as Draft;
  } catch {
    // no storage, or not ours: start from the todo
  }
  return { title: todo.title, priority: todo.priority, due: todo.due_on };
}
function keepDraft(id: string, draft: Draft | null): void {
  try {
    if (draft) sessionStorage.setItem(draftKey(id), JSON.stringify(draft));
    else sessionStorage.removeItem(draftKey(id));
  } catch {
    // no storage: the fields still hold it
  }
}

function EditTodo({ todo, onSave }: { todo: Todo; onSave: (body: TodoEdit) => Promise<unknown> }) {
  const [title, setTitleState] = useState(todo.title);
  const [priority, setPriorityState] = useState<Priority>(todo.priority);
  const [due, setDueState] = useState<string | null>(todo.due_on);
  const [saving, setSaving] = useState(false);
  const change = (next: Partial<Draft>) => {
    const d = { title, priority, due, ...next };
    setTitleState(d.title);
    setPriorityState(d.priority);
    setDueState(d.due);
    keepDraft(todo.id, d);
  };
  const setTitle = (v: string) => change({ title: v });
  const setPriority = (v: Priority) => change({ priority: v });
  const setDue = (v: string | null) => change({ due: v });
  return (
    <FormDialog
      title="Edit todo"
      onOpenChange={(open) => {
        if (open) {
          const d = readDraft(todo);
          setTitleState(d.title);
          setPriorityState(d.priority);
          setDueState(d.due);
        } else if (!saving) {
          keepDraft(todo.id, null); // Cancel or Escape: what was there stays
        }
      }}
      trigger={
        <Button className="icon-button" aria-label={`Edit ${todo.title}`}>
          ✎
        </Button>
      }
    >
      {(close) => {
        const submit = async (e: FormEvent) => {
          e.preventDefault();
          setSaving(true);
          try {
            await onSave({ title: title.trim(), priority, due_on: due });
            keepDraft(todo.id, null);
            close();
          } catch {
            // The toast says why; the dialog stays open with what was typed.
          } finally {
            setSaving(false);
          }
        };
        return (
          <form onSubmit={(e) => void submit(e)}>
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
              <button type="submit" className="button primary" disabled={saving}>
                Save
              </button>
            </div>
          </form>
        );
      }}
    </FormDialog>
  );
}
