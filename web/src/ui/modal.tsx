import type { ReactNode } from 'react';
import { Dialog, Modal, ModalOverlay } from 'react-aria-components';

export interface ModalDialogProps {
  isOpen: boolean;
  onOpenChange: (open: boolean) => void;
  role?: 'dialog' | 'alertdialog';
  /** The dialog's content, given `close`. */
  children: (close: () => void) => ReactNode;
}

/**
 * React Aria's modal dialog (focus kept inside, Escape and a click outside close it, focus
 * back on the trigger): the part of a dialog that loads when it first opens (modal-trigger.tsx).
 */
export default function ModalDialog({ isOpen, onOpenChange, role = 'dialog', children }: ModalDialogProps) {
  return (
    <ModalOverlay className="modal-overlay" isDismissable isOpen={isOpen} onOpenChange={onOpenChange}>
      <Modal className="modal">
        <Dialog role={role} className="dialog">
          {({ close }) => children(close)}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
