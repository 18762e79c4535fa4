import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent } from '@tanstack/react-router';
import { boardCardsQuery, boardQuery, membersQuery } from './api/queries';
import { Shell } from './ui/shell';
import { NotFound } from './pages/not-found';
import { Home } from './pages/home';

/**
 * Every page is a URL that survives a reload (contract §8); filters live in the query string,
 * validated here so pages read them typed. Pages load on demand: the board does not carry
 * the snippet diff or the date picker.
 */

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const oneOf = <T extends string>(v: unknown, values: readonly T[]): T | undefined =>
  values.includes(v as T) ? (v as T) : undefined;

export interface BoardSearch {
  assignee?: 'me' | undefined;
  milestone?: string | undefined;
}
export interface TodoSearch {
  scope?: 'personal' | 'org' | undefined;
}
export interface SnippetSearch {
  q?: string | undefined;
  type?: 'sql' | 'json' | 'html' | 'txt' | undefined;
  tag?: string | undefined;
}

const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({ component: Shell, notFoundComponent: NotFound });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- lazyRouteComponent's own bound
const page = <T extends Record<string, any>>(load: () => Promise<T>, name: keyof T & string) => lazyRouteComponent(load, name);

const routeTree = rootRoute.addChildren([
  createRoute({ getParentRoute: () => rootRoute, path: '/', component: Home }),
  createRoute({ getParentRoute: () => rootRoute, path: '/boards', component: page(() => import('./pages/boards'), 'BoardsPage') }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/boards/$slug',
    validateSearch: (s: Record<string, unknown>): BoardSearch => ({
      assignee: oneOf(s.assignee, ['me'] as const),
      milestone: str(s.milestone),
    }),
    loaderDeps: ({ search }) => search,
    // Start the board's reads while its code loads (not awaited: the page shows its own loading).
    loader: ({ context: { queryClient }, params, deps }) => {
      void queryClient.prefetchQuery(boardCardsQuery(params.slug, deps));
      void queryClient.prefetchQuery(boardQuery(params.slug));
      void queryClient.prefetchQuery(membersQuery);
    },
    component: page(() => import('./pages/board'), 'BoardPage'),
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/cards/$ref', component: page(() => import('./pages/card'), 'CardPage') }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/todos',
    validateSearch: (s: Record<string, unknown>): TodoSearch => ({ scope: oneOf(s.scope, ['personal', 'org'] as const) }),
    component: page(() => import('./pages/todos'), 'TodosPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/snippets',
    validateSearch: (s: Record<string, unknown>): SnippetSearch => ({
      q: str(s.q),
      type: oneOf(s.type, ['sql', 'json', 'html', 'txt'] as const),
      tag: str(s.tag),
    }),
    component: page(() => import('./pages/snippets'), 'SnippetsPage'),
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/snippets/$key', component: page(() => import('./pages/snippet'), 'SnippetPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/milestones', component: page(() => import('./pages/milestones'), 'MilestonesPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/milestones/$ref', component: page(() => import('./pages/milestone'), 'MilestonePage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings', component: page(() => import('./pages/settings/profile'), 'ProfilePage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings/api-keys', component: page(() => import('./pages/settings/api-keys'), 'ApiKeysPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings/sessions', component: page(() => import('./pages/settings/sessions'), 'SessionsPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings/members', component: page(() => import('./pages/settings/members'), 'MembersPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings/webhooks', component: page(() => import('./pages/settings/webhooks'), 'WebhooksPage') }),
]);

export function makeRouter(queryClient: QueryClient) {
  return createRouter({ routeTree, context: { queryClient }, defaultPreload: 'intent', defaultPreloadStaleTime: 0, scrollRestoration: true });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof makeRouter>;
  }
}
