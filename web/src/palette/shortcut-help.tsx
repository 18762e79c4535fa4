import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { SHORTCUTS } from './shortcuts';
import './palette.css';

/** The `?` dialog: every keyboard shortcut. */
export default function ShortcutHelp({ onClose }: { onClose: () => void }) {
  return (
    <ModalOverlay className="modal-overlay" isDismissable isOpen onOpenChange={(open) => !open && onClose()}>
      <Modal className="modal">
        <Dialog className="dialog">
          <Heading slot="title">Keyboard shortcuts</Heading>
          <dl className="shortcut-list">
            {SHORTCUTS.map((s) => (
              <div key={s.does}>
                <dt>
                  {s.keys.map((k) => (
                    <kbd key={k}>{k}</kbd>
                  ))}
                </dt>
                <dd>{s.does}</dd>
              </div>
            ))}
          </dl>
          <p className="muted">Single keys do nothing while you type in a field.</p>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
