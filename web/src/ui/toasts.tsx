import { lazy, Suspense, useEffect, useState } from 'react';
import { subscribeConnectivity, isOffline } from '../api/connectivity';
import { loadChunk } from '../chunks';
import { Quiet } from './quiet-boundary';
import { toastQueue } from './toast-queue';

const loadRegion = () => loadChunk(() => import('./toast-region'));

/**
 * The toast region's code (React Aria) loads after the page, not with it: with the first
 * toast, or once the browser is idle, so that a failure while tack is unreachable (the
 * moment toasts are wanted most) finds it loaded. If it still cannot load, toasts wait and
 * the page stays (never a blank app); it is tried again once tack is back.
 */
export function Toasts() {
  const [needed, setNeeded] = useState(() => toastQueue.visibleToasts.length > 0);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const idle = window.requestIdleCallback?.(() => void loadRegion().catch(() => {}), { timeout: 4000 });
    return () => {
      if (idle !== undefined) window.cancelIdleCallback?.(idle);
    };
  }, []);
  useEffect(() => {
    if (needed) return;
    if (toastQueue.visibleToasts.length > 0) setNeeded(true);
    return toastQueue.subscribe(() => {
      if (toastQueue.visibleToasts.length > 0) setNeeded(true);
    });
  }, [needed]);
  // Tried again once tack is back, if the region's code failed to load.
  const [failed, setFailed] = useState(false);
  useEffect(
    () =>
      subscribeConnectivity(() => {
        if (!isOffline() && failed) {
          setFailed(false);
          setAttempt((n) => n + 1);
        }
      }),
    [failed],
  );
  return needed ? (
    <Quiet key={attempt} onError={() => setFailed(true)}>
      <Region attempt={attempt} />
    </Quiet>
  ) : null;
}

const regions = new Map<number, ReturnType<typeof lazy>>();
function Region({ attempt }: { attempt: number }) {
  let R = regions.get(attempt);
  if (!R) {
    R = lazy(loadRegion);
    regions.set(attempt, R);
  }
  return (
    <Suspense fallback={null}>
      <R />
    </Suspense>
  );
}
