import { memo, type Ref } from 'react';
import { useDraggable, type DraggableAttributes, type DraggableSyntheticListeners } from '@dnd-kit/core';
import type { Card, Member } from '../../api/types';
import { RelativeDate } from '../../lib/relative-date';
import { initials } from '../../lib/people';

export interface TileProps {
  card: Card;
  members: ReadonlyMap<string, Member>;
  /** The caller's today (getMe's, in their zone). */
  today: string;
  /** Rendered in the drag overlay: no handle of its own. */
  overlay?: boolean;
  /** No handle: the caller may move it nowhere (a viewer). */
  readOnly?: boolean;
  /** Opens the card page in the app (a plain link otherwise: hundreds of router links are slow to mount). */
  onOpen?: (ref: string) => void;
}

/** A card on the board: ref, title, assignees' initials, due date (red when overdue), criteria. */
export const CardTile = memo(function CardTile(props: TileProps) {
  return props.overlay || props.readOnly ? <Tile {...props} /> : <DraggableTile {...props} />;
});

/**
 * The whole tile is what moves (so the card in hand is the card, not a strip the size of its
 * handle), and the handle is what picks it up, by pointer or keyboard.
 */
function DraggableTile(props: TileProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, isDragging } = useDraggable({ id: props.card.id, data: { card: props.card } });
  return <Tile {...props} tileRef={setNodeRef} handle={{ ref: setActivatorNodeRef, attributes, listeners, isDragging }} />;
}

interface HandleProps {
  ref: Ref<HTMLButtonElement>;
  attributes: DraggableAttributes;
  listeners: DraggableSyntheticListeners;
  isDragging: boolean;
}

function Tile({ tileRef, handle, ...props }: TileProps & { tileRef?: Ref<HTMLElement>; handle?: HandleProps }) {
  const { card, overlay } = props;
  return (
    <article ref={tileRef} className={`tile${overlay ? ' tile-overlay' : ''}${handle?.isDragging ? ' in-hand' : ''}`} aria-label={`${card.ref}: ${card.title}`}>
      <div className="tile-top">
        <span className="mono muted">{card.ref}</span>
        {handle && <DragHandle card={card} {...handle} />}
      </div>
      <TileContent {...props} />
    </article>
  );
}

/** Title and facts: memoised apart, since every draggable re-renders while any card is in hand. */
const TileContent = memo(function TileContent({ card, members, today, onOpen }: TileProps) {
  // Overdue: due before the caller's today as tack gives it (getMe), and not done.
  const overdue = card.due_on !== null && card.due_on < today && card.workflow_status !== 'done';
  return (
    <>
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
            <RelativeDate date={card.due_on} today={today} prefix="Due " />
          </span>
        )}
        {card.criteria_total > 0 && (
          <span className={`chip${card.criteria_done === card.criteria_total ? ' accent' : ''}`} title="Criteria done of total">
            ✓ {card.criteria_done}/{card.criteria_total}
          </span>
        )}
      </div>
    </>
  );
});

function DragHandle({ card, ref, attributes, listeners, isDragging }: HandleProps & { card: Card }) {
  return (
    <button
      type="button"
      ref={ref}
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
