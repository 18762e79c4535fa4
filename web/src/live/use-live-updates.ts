import type { QueryClient } from '@tanstack/react-query';
import { keys } from '../api/queries';
import { startLiveUpdates } from './live-updates';
import { SIGN_OUT_EVENT } from './sign-out-event';

/**
 * Keeps what the tab shows live (see live-updates.ts) while signed in: one stream per tab,
 * opened once getMe has answered, closed on sign-out. main.tsx loads this module after the
 * first render, so none of the live code is in any page's first load.
 */
export function watchSignIn(qc: QueryClient): void {
  let stop: (() => void) | undefined;
  let signedOut = false;
  const check = () => {
    if (stop || signedOut || qc.getQueryData(keys.me) === undefined) return;
    stop = startLiveUpdates(qc);
  };
  window.addEventListener(SIGN_OUT_EVENT, () => {
    signedOut = true;
    stop?.();
    stop = undefined;
  });
  qc.getQueryCache().subscribe(check);
  check();
}
