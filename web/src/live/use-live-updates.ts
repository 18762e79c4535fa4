import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useMe } from '../api/queries';

let stopCurrent: (() => void) | undefined;

/**
 * Keeps what the tab shows live (see live-updates.ts) while signed in: one stream per tab,
 * opened once getMe has answered, its code loaded after the first render (none of it is in
 * the first load).
 */
export function useLiveUpdates(): void {
  const qc = useQueryClient();
  const signedIn = useMe().data !== undefined;
  useEffect(() => {
    if (!signedIn) return;
    let stop: (() => void) | undefined;
    let cancelled = false;
    import('./live-updates')
      .then((live) => {
        if (cancelled) return;
        stop = live.startLiveUpdates(qc);
        stopCurrent = stop;
      })
      .catch(() => {
        // Not loaded (tack away, a deploy): the pages still read on their own.
      });
    return () => {
      cancelled = true;
      stop?.();
      if (stopCurrent === stop) stopCurrent = undefined;
    };
  }, [qc, signedIn]);
}

/** Closes the tab's stream (signing out). */
export function stopLiveUpdates(): void {
  stopCurrent?.();
  stopCurrent = undefined;
}
