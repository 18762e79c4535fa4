import { KeyboardCode, type KeyboardCoordinateGetter } from '@dnd-kit/core';
import { STATUSES, type WorkflowStatus } from '../../api/types';

/**
 * Arrow keys move the card in hand one column left or right (up and down too, for the
 * stacked columns of a narrow screen): the coordinates put it inside the next column.
 */
export const columnKeyboardCoordinates: KeyboardCoordinateGetter = (event, { context, currentCoordinates }) => {
  const step =
    event.code === KeyboardCode.Right || event.code === KeyboardCode.Down ? 1 : event.code === KeyboardCode.Left || event.code === KeyboardCode.Up ? -1 : 0;
  if (step === 0) return undefined;
  event.preventDefault();
  const { active, over, droppableRects, collisionRect } = context;
  if (!active || !collisionRect) return currentCoordinates;
  // The column the card in hand is over now, read from where it is: `over` is not known
  // until collision detection has run once, and the card's own data may predate a move.
  const cx = collisionRect.left + collisionRect.width / 2;
  const cy = collisionRect.top + collisionRect.height / 2;
  const here = STATUSES.find((s) => {
    const r = droppableRects.get(s);
    return r !== undefined && cx >= r.left && cx <= r.left + r.width && cy >= r.top && cy <= r.top + r.height;
  });
  const from = (here ?? over?.id ?? (active.data.current as { card?: { workflow_status: WorkflowStatus } } | undefined)?.card?.workflow_status) as WorkflowStatus | undefined;
  const index = from ? STATUSES.indexOf(from) : 0;
  const target = STATUSES[Math.min(STATUSES.length - 1, Math.max(0, index + step))]!;
  const rect = droppableRects.get(target);
  if (!rect) return currentCoordinates;
  return {
    x: currentCoordinates.x + (rect.left + (rect.width - collisionRect.width) / 2 - collisionRect.left),
    y: currentCoordinates.y + (rect.top + 48 - collisionRect.top),
  };
};
