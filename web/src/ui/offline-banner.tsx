import { useOffline } from '../api/connectivity';

/** Shown while tack cannot be reached; what was typed stays where it was. */
export function OfflineBanner() {
  const offline = useOffline();
  return (
    <div role="status" aria-live="polite" className={offline ? 'offline-banner' : 'visually-hidden'} data-testid="offline-banner">
      {offline ? 'tack cannot be reached. Trying again… What you typed stays here.' : ''}
    </div>
  );
}
