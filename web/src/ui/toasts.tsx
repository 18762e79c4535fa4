import { lazy, Suspense } from 'react';

const ToastRegion = lazy(() => import('./toast-region'));

export function Toasts() {
  return (
    <Suspense fallback={null}>
      <ToastRegion />
    </Suspense>
  );
}
