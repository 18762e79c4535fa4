import type { ReactNode } from 'react';
import { Button, Heading } from 'react-aria-components';
import { ModalTrigger } from './modal-trigger';

interface ConfirmProps {
  /** The button that opens it. */
  trigger: ReactNode;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  danger?: boolean;
  /** Open from outside (optional), as `ModalTrigger` takes it. */
  isOpen?: boolean;
  onOpenChange?: (open: boolean) => void;
}

/** Asks before something that cannot be undone (delete, revoke, end a session). */
export function ConfirmDialog({ trigger, title, children, confirmLabel, onConfirm, danger = true, isOpen, onOpenChange }: ConfirmProps) {
  return (
    <ModalTrigger trigger={trigger} role="alertdialog" isOpen={isOpen} onOpenChange={onOpenChange}>
      {(close) => (
        <>
          <Heading slot="title">{title}</Heading>
          <div>{children}</div>
          <div className="dialog-actions">
            <Button className="button" onPress={close}>
              Cancel
            </Button>
            <Button
              className={`button ${danger ? 'danger solid' : 'primary'}`}
              onPress={() => {
                onConfirm();
                close();
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </>
      )}
    </ModalTrigger>
  );
}

interface FormDialogProps {
  trigger: ReactNode;
  title: string;
  children: (close: () => void) => ReactNode;
  isOpen?: boolean;
  onOpenChange?: (open: boolean) => void;
}

/** A dialog holding a form; the form closes it when its call succeeds. */
export function FormDialog({ trigger, title, children, isOpen, onOpenChange }: FormDialogProps) {
  return (
    <ModalTrigger trigger={trigger} isOpen={isOpen} onOpenChange={onOpenChange}>
      {(close) => (
        <>
          <Heading slot="title">{title}</Heading>
          {children(close)}
        </>
      )}
    </ModalTrigger>
  );
}
