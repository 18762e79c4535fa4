import { lazy, Suspense, useCallback, useState, type ReactNode } from 'react';
import { ButtonContext } from 'react-aria-components';
import { loadChunk } from '../chunks';
import type { ModalDialogProps } from './modal';
import { Quiet } from './quiet-boundary';

const loadModal = () => lazy(() => loadChunk(() => import('./modal')));
/** Made again after a failed load: `lazy` keeps its first failure. */
let ModalDialog = loadModal();

interface Props {
  /** The button that opens it: a React Aria `Button`, pressed as `DialogTrigger`'s would be. */
  trigger: ReactNode;
  role?: ModalDialogProps['role'];
  /** Open from outside (optional): otherwise the trigger opens it. */
  isOpen?: boolean | undefined;
  onOpenChange?: ((open: boolean) => void) | undefined;
  children: ModalDialogProps['children'];
}

/**
 * A button that opens a modal dialog, as React Aria's `DialogTrigger` with `ModalOverlay`,
 * except that the modal's code (focus scope, overlay, dialog: most of React Aria's weight)
 * loads when the dialog first opens, not with the page. The trigger is the caller's
 * `Button`, given its press and `aria-haspopup`/`aria-expanded` through `ButtonContext`.
 * If the code cannot load (tack unreachable), the dialog stays closed and the page stays.
 */
export function ModalTrigger({ trigger, role, isOpen, onOpenChange, children }: Props) {
  const [ownOpen, setOwnOpen] = useState(false);
  const open = isOpen ?? ownOpen;
  const setOpen = useCallback(
    (next: boolean) => {
      setOwnOpen(next);
      onOpenChange?.(next);
    },
    [onOpenChange],
  );
  return (
    <>
      <ButtonContext.Provider value={{ onPress: () => setOpen(true), 'aria-haspopup': 'dialog', 'aria-expanded': open, isPressed: open }}>{trigger}</ButtonContext.Provider>
      {open && (
        <Quiet
          onError={() => {
            ModalDialog = loadModal();
            setOpen(false);
          }}
        >
          <Suspense fallback={null}>
            <ModalDialog isOpen onOpenChange={setOpen} role={role}>
              {children}
            </ModalDialog>
          </Suspense>
        </Quiet>
      )}
    </>
  );
}
