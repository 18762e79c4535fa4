import { useState, type FormEvent, type ReactNode } from 'react';
import { useDroppable } from '@dnd-kit/core';
import { newIdempotencyKey } from '../../api/idempotency';
import type { WorkflowStatus } from '../../api/types';
import { STATUS_LABEL } from '../../api/types';

interface ColumnProps {
  status: WorkflowStatus;
  count: number;
  /** Shown beside the title: the gate on Done. */
  badge?: ReactNode;
  /** A drop here would be refused (listBoardMoves says so for this caller). */
  refused?: boolean;
  /** The caller may create a card here (listBoardMoves); no Add card otherwise. */
  mayCreate: boolean;
  /** Creates a card in this column; `key` is the Idempotency-Key of this one submit (the same on a retry of it). */
  onCreate: (title: string, key: string) => Promise<unknown>;
  children: ReactNode;
}

export function Column({ status, count, badge, refused, mayCreate, onCreate, children }: ColumnProps) {
  const { setNodeRef, isOver } = useDroppable({ id: status });
  const headingId = `col-${status}`;
  return (
    <section
      ref={setNodeRef}
      className={`column${isOver ? ' over' : ''}${refused ? ' refused' : ''}`}
      aria-labelledby={headingId}
      data-status={status}
    >
      <header className="column-head">
        <h2 id={headingId}>
          {STATUS_LABEL[status]} <span className="count">{count}</span>
        </h2>
        {badge}
      </header>
      <div className="column-cards">{children}</div>
      {mayCreate && <AddCard status={status} onCreate={onCreate} />}
    </section>
  );
}

function AddCard({ status, onCreate }: { status: WorkflowStatus; onCreate: (title: string, key: string) => Promise<unknown> }) {
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [busy, setBusy] = useState(false);
  // One key per card meant: kept while the same title is submitted again (a retry after a
  // failure is answered once), a new one for another title or the next card.
  const [key, setKey] = useState(newIdempotencyKey);
  const edit = (value: string) => {
    setTitle(value);
    setKey(newIdempotencyKey());
  };
  if (!open) {
    return (
      <button type="button" className="add-card" onClick={() => setOpen(true)}>
        + Add card<span className="visually-hidden"> to {STATUS_LABEL[status]}</span>
      </button>
    );
  }
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!title.trim()) return;
    setBusy(true);
    try {
      await onCreate(title.trim(), key);
      setTitle('');
      setKey(newIdempotencyKey());
    } catch {
      // The toast says why; the title stays for another try.
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="add-card-form" onSubmit={submit}>
      <label htmlFor={`new-${status}`} className="visually-hidden">
        Title of a new card in {STATUS_LABEL[status]}
      </label>
      <input
        id={`new-${status}`}
        autoFocus
        value={title}
        onChange={(e) => edit(e.target.value)}
        onKeyDown={(e) => {
          // Escape cancels: nothing made, the field empty again.
          if (e.key === 'Escape') {
            edit('');
            setOpen(false);
          }
        }}
        placeholder="Card title"
        maxLength={300}
      />
      <div className="row">
        <button type="submit" className="button primary small" disabled={busy}>
          Add
        </button>
        <button type="button" className="button small" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
