import {
  Button,
  Text,
  UNSTABLE_Toast as Toast,
  UNSTABLE_ToastContent as ToastContent,
  UNSTABLE_ToastRegion as Region,
} from 'react-aria-components';
import { toastQueue } from './toast-queue';

export default function ToastRegion() {
  return (
    <Region queue={toastQueue} className="toasts">
      {({ toast }) => (
        <Toast toast={toast} className={`toast toast-${toast.content.tone}`}>
          <ToastContent>
            <Text slot="title">{toast.content.title}</Text>
            {toast.content.detail && (
              <Text slot="description" className="muted mono">
                {toast.content.detail}
              </Text>
            )}
          </ToastContent>
          {toast.content.action && (
            <Button className="button small" onPress={toast.content.action.run}>
              {toast.content.action.label}
            </Button>
          )}
          <Button slot="close" aria-label="Dismiss" className="icon-button">
            ×
          </Button>
        </Toast>
      )}
    </Region>
  );
}
