import { lazy, Suspense, useEffect, useState } from 'react';
import { toastQueue } from './toast-queue';

const ToastRegion = lazy(() => import('./toast-region'));

/** The toast region's code (React Aria) loads with the first toast, not with the page. */
export function Toasts() {
  const [needed, setNeeded] = useState(() => toastQueue.visibleToasts.length > 0);
  useEffect(() => {
    if (needed) return;
    if (toastQueue.visibleToasts.length > 0) setNeeded(true);
    return toastQueue.subscribe(() => {
      if (toastQueue.visibleToasts.length > 0) setNeeded(true);
    });
  }, [needed]);
  return needed ? (
    <Suspense fallback={null}>
      <ToastRegion />
    </Suspense>
  ) : null;
}
