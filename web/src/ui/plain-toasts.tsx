import { useSyncExternalStore } from 'react';
import { toastQueue } from './toast-queue';

const visible = () => toastQueue.visibleToasts;

/**
 * The toasts without React Aria: shown while the region's code loads, or when it could not
 * (tack unreachable at the person's first press or key, the moment a toast matters most).
 * A polite live region with each toast's text, its action and a dismiss button.
 */
export function PlainToasts() {
  const toasts = useSyncExternalStore(toastQueue.subscribe.bind(toastQueue), visible);
  if (toasts.length === 0) return null;
  return (
    <section className="toasts" aria-label="Notifications" role="region">
      {toasts.map((t) => (
        <div key={t.key} className={`toast toast-${t.content.tone}`} role={t.content.tone === 'error' ? 'alert' : 'status'}>
          <div>
            <div>{t.content.title}</div>
            {t.content.detail && <div className="muted mono">{t.content.detail}</div>}
          </div>
          {t.content.action && (
            <button type="button" className="button small" onClick={t.content.action.run}>
              {t.content.action.label}
            </button>
          )}
          <button type="button" aria-label="Dismiss" className="icon-button" onClick={() => toastQueue.close(t.key)}>
            ×
          </button>
        </div>
      ))}
    </section>
  );
}
