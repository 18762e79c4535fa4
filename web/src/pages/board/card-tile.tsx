import { memo } from 'react';
import { useDraggable } from '@dnd-kit/core';
import type { Card, Member } from '../../api/types';
import { formatDate } from '../../lib/dates';
import { initials } from '../../lib/people';

export interface TileProps {
  card: Card;
  members: ReadonlyMap<string, Member>;
  today: string;
  /** Rendered in the drag overlay: no handle of its own. */
  overlay?: boolean;
  /** Opens the card page in the app (a plain link otherwise: hundreds of router links are slow to mount). */
  onOpen?: (ref: string) => void;
}

/** A card on the board: ref, title, assignees' initials, due date (red when overdue), criteria. */
export const CardTile = memo(function CardTile({ card, members, today, overlay, onOpen }: TileProps) {
  const overdue = card.due_on !== null && card.due_on < today && card.workflow_status !== 'done';
  return (
    <article className={`tile${overlay ? ' tile-overlay' : ''}`} aria-label={`${card.ref}: ${card.title}`}>
      <div className="tile-top">
        <span className="mono muted">{card.ref}</span>
        {!overlay && <DragHandle card={card} />}
      </div>
      <a
        href={`/cards/${encodeURIComponent(card.ref)}`}
        className="tile-title"
        onClick={(e) => {
          if (!onOpen || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          onOpen(card.ref);
        }}
      >
        {card.title}
      </a>
      <div className="tile-meta">
        <span className="assignees">
          {card.assignee_ids.slice(0, 3).map((id) => {
            const name = members.get(id)?.name ?? 'Unknown member';
            return (
              <span key={id} className="initials" title={name} aria-label={name} role="img">
                {initials(name)}
              </span>
            );
          })}
        </span>
        {card.due_on && (
          <span className={`chip${overdue ? ' danger' : ''}`} title={overdue ? 'Overdue' : 'Due'}>
            {overdue && <span className="visually-hidden">Overdue, </span>}
            {formatDate(card.due_on, today)}
          </span>
        )}
        {card.criteria_total > 0 && (
          <span className={`chip${card.criteria_done === card.criteria_total ? ' accent' : ''}`} title="Criteria done of total">
            ✓ {card.criteria_done}/{card.criteria_total}
          </span>
        )}
      </div>
    </article>
  );
});

function DragHandle({ card }: { card: Card }) {
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({ id: card.id, data: { card } });
  return (
    <button
      type="button"
      ref={setNodeRef}
      className={`drag-handle${isDragging ? ' dragging' : ''}`}
      {...attributes}
      {...listeners}
      aria-label={`Move ${card.ref}`}
      data-card={card.ref}
    >
      <svg viewBox="0 0 10 16" width="10" height="16" aria-hidden="true">
        <g fill="currentColor">
          <circle cx="2" cy="3" r="1.4" /><circle cx="8" cy="3" r="1.4" /><circle cx="2" cy="8" r="1.4" />
          <circle cx="8" cy="8" r="1.4" /><circle cx="2" cy="13" r="1.4" /><circle cx="8" cy="13" r="1.4" />
        </g>
      </svg>
    </button>
  );
}
