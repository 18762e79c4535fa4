import { useCallback, useEffect, useRef } from 'react';
import { useRouter, type ErrorComponentProps } from '@tanstack/react-router';
import { useOffline } from '../api/connectivity';
import { ChunkLoadError } from '../chunks';

/**
 * A page that failed, in place of the page and inside the shell (the nav stays): what
 * happened, Try again and Reload. When tack was unreachable it tries again by itself once
 * tack is back.
 */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  const offline = useOffline();
  const retry = useCallback(() => {
    reset();
    void router.invalidate();
  }, [reset, router]);
  const wasOffline = useRef(offline);
  useEffect(() => {
    if (wasOffline.current && !offline) retry();
    wasOffline.current = offline;
  }, [offline, retry]);
  const unreachable = offline || (error instanceof ChunkLoadError && error.offline);
  return (
    <section className="page narrow route-error" role="alert" data-testid="route-error">
      <h1>{unreachable ? 'This page cannot be loaded right now' : 'This page ran into a problem'}</h1>
      <p>
        {unreachable
          ? 'tack cannot be reached. The page loads by itself as soon as tack is back.'
          : 'Something on this page failed. Try again; if it keeps failing, reload the app.'}
      </p>
      <div className="row">
        <button type="button" className="button primary" onClick={retry}>
          Try again
        </button>
        <button type="button" className="button" onClick={() => window.location.reload()} disabled={offline}>
          Reload
        </button>
      </div>
    </section>
  );
}
