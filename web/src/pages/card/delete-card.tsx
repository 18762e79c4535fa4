import type { Card } from '../../api/types';
import { ConfirmDialog } from '../../ui/dialogs';

interface Props {
  card: Card;
  onConfirm: () => void;
  onClose: () => void;
}

/**
 * The question before a card is deleted, open from the start: the card page loads it when
 * Delete card is first pressed, so React Aria's dialog and buttons stay off the card's first
 * load (issue 32's 150 KB).
 */
export function DeleteCardDialog({ card, onConfirm, onClose }: Props) {
  return (
    <ConfirmDialog trigger={null} isOpen onOpenChange={(open) => !open && onClose()} title={`Delete ${card.ref}?`} confirmLabel="Delete card" onConfirm={onConfirm}>
      <p>“{card.title}” and its criteria will be gone. Todos that mirror its criteria stay, unlinked.</p>
    </ConfirmDialog>
  );
}
