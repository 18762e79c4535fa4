import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { isOffline, subscribeConnectivity } from './api/connectivity';
import { ApiError } from './api/errors';
import { makeRouter } from './router';
import { notifyError } from './ui/toast-queue';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Refetch when the tab regains focus (the default), and retry only what may pass on a retry.
      retry: (count, err) => count < 2 && (!(err instanceof ApiError) || err.status === 0 || err.status >= 500 || err.status === 429),
      staleTime: 10_000,
    },
  },
  // Every failed write tells the person why, with the request id; pages that show the error
  // in place (a form's fields) set meta.inline.
  mutationCache: new MutationCache({
    onError: (err, _vars, _ctx, mutation) => {
      if (mutation.meta?.inline) return;
      notifyError(err);
    },
  }),
});

const router = makeRouter(queryClient);

// tack is back: read again what failed while it was away (pages keep what was typed).
subscribeConnectivity(() => {
  if (isOffline()) return;
  void queryClient.invalidateQueries({ predicate: (q) => q.state.status === 'error' || q.isStale() });
});

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: { inline?: boolean };
  }
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);

// Live updates from the event stream: their code loads after the first render, off every page's first load.
import('./live/use-live-updates')
  .then((live) => live.watchSignIn(queryClient))
  .catch(() => {
    // Not loaded (tack away, a deploy): the pages still read on their own.
  });
