import { lazy, Suspense, useEffect, useState } from 'react';
import { subscribeConnectivity, isOffline } from '../api/connectivity';
import { loadChunk } from '../chunks';
import { PlainToasts } from './plain-toasts';
import { Quiet } from './quiet-boundary';
import { toastQueue } from './toast-queue';

/** What a person does before any toast can be wanted. */
const FIRST_USE = ['pointerdown', 'keydown'] as const;
const loadRegion = () => loadChunk(() => import('./toast-region'));

/**
 * The toast region's code (React Aria, with the press and focus code it shares) loads after
 * the page, not with it: with the first toast, or at the person's first press or key. Every
 * toast answers something the person did (a write, an undo, a copy), so the region is
 * loaded by then, also when that write fails because tack is unreachable; a page only read
 * never fetches it (issue 32: the board's first load does not carry React Aria). While it
 * loads, or if it cannot (tack gone before the first press), the toasts show plainly
 * (plain-toasts.tsx) and the page stays (never a blank app); it is tried again once tack
 * is back.
 */
export function Toasts() {
  const [needed, setNeeded] = useState(() => toastQueue.visibleToasts.length > 0);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const first = () => {
      stop();
      void loadRegion().catch(() => {});
    };
    const stop = () => {
      for (const type of FIRST_USE) window.removeEventListener(type, first, true);
    };
    for (const type of FIRST_USE) window.addEventListener(type, first, { capture: true, passive: true });
    return stop;
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
  if (!needed) return null;
  return failed ? (
    <PlainToasts />
  ) : (
    <Quiet key={attempt} onError={() => setFailed(true)}>
      <Region attempt={attempt} />
    </Quiet>
  );
}

const regions = new Map<number, ReturnType<typeof lazy>>();
function Region({ attempt }: { attempt: number }) {
  let R = regions.get(attempt);
  if (!R) {
    R = lazy(loadRegion);
    regions.set(attempt, R);
  }
  return (
    <Suspense fallback={<PlainToasts />}>
      <R />
    </Suspense>
  );
}
