import { ToastQueue } from 'react-stately/useToastState';
import { asApiError, describeError } from '../api/errors';

/**
 * The toasts waiting to be shown. The queue is tiny; the region that renders it (React Aria)
 * loads after the page, so the board's first load does not carry it.
 */
export interface Note {
  title: string;
  detail?: string | undefined;
  tone: 'error' | 'info';
  /** A button in the toast: Undo, which runs the inverse operation. */
  action?: { label: string; run: () => void } | undefined;
}

export const toastQueue = new ToastQueue<Note>({ maxVisibleToasts: 4 });

export function notify(title: string, detail?: string): void {
  toastQueue.add({ title, detail, tone: 'info' }, { timeout: 5000 });
}

/**
 * Something done that can be undone: the toast offers Undo (the inverse operation over /v1),
 * kept 8 seconds.
 */
export function notifyUndo(title: string, undo: () => void): void {
  const key = toastQueue.add({ title, tone: 'info', action: { label: 'Undo', run: () => { toastQueue.close(key); undo(); } } }, { timeout: 8000 });
}

/** A failed call: the API's user_message and its request_id, kept until dismissed. */
export function notifyError(err: unknown): void {
  const e = asApiError(err);
  toastQueue.add({ title: describeError(e), detail: e.requestId ? `Request ${e.requestId}` : undefined, tone: 'error' });
}
