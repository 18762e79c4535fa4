import type { FormEvent, ReactNode } from 'react';
import { Button, Heading } from 'react-aria-components';
import { FieldErrors } from './field-errors';
import { ModalTrigger } from './modal-trigger';

interface FormDialogProps {
  /** The button that opens it. */
  trigger: ReactNode;
  title: string;
  /** The fields; given `close`, for a form that ends otherwise (a delete inside it). */
  children: (close: () => void) => ReactNode;
  /** Saves; resolves when saved (the dialog closes), rejects to stay open with the field errors. */
  onSave: () => Promise<unknown>;
  busy: boolean;
  error: unknown;
  /** An action on the left of Cancel and Save (a delete). */
  aside?: ReactNode;
  /** Sets the fields from the thing as it is now, each time the dialog opens (what a Cancel left is dropped). */
  onOpen(): void;
}

/** A dialog holding a form that edits one thing: Save closes it once saved, Cancel or Escape without saving. */
export function FormDialog({ trigger, title, children, onSave, busy, error, aside, onOpen }: FormDialogProps) {
  return (
    <ModalTrigger trigger={trigger} onOpenChange={(open) => open && onOpen()}>
      {(close) => {
        const submit = (e: FormEvent) => {
          e.preventDefault();
          onSave().then(close, () => undefined);
        };
        return (
          <form onSubmit={submit}>
            <Heading slot="title">{title}</Heading>
            {children(close)}
            <FieldErrors error={error} />
            <div className="dialog-actions">
              {aside}
              {aside && <span className="grow" />}
              <Button className="button" onPress={close}>
                Cancel
              </Button>
              <button type="submit" className="button primary" disabled={busy}>
                Save
              </button>
            </div>
          </form>
        );
      }}
    </ModalTrigger>
  );
}
