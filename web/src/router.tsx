import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter } from '@tanstack/react-router';
import { boardCardsQuery, boardMovesQuery, boardQuery, membersQuery, milestonesQuery, todosQuery } from './api/queries';
import { lazyPage as page } from './chunks';
import { RouteError } from './ui/route-error';
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

/** A filter link is the current one only when the whole query string matches (one `aria-current`). */
export const FILTER_ACTIVE = { exact: true, includeSearch: true } as const;

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

const routeTree = rootRoute.addChildren([
  createRoute({ getParentRoute: () => rootRoute, path: '/', staticData: { title: 'Home' }, component: Home }),
  createRoute({ getParentRoute: () => rootRoute, path: '/boards', staticData: { title: 'Boards' }, component: page(() => import('./pages/boards'), 'BoardsPage') }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/boards/$slug',
    staticData: { title: 'Board' },
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
      void queryClient.prefetchQuery(milestonesQuery);
      void queryClient.prefetchQuery(boardMovesQuery(params.slug));
    },
    component: page(() => import('./pages/board'), 'BoardPage'),
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/cards/$ref', staticData: { title: 'Card' }, component: page(() => import('./pages/card'), 'CardPage') }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/todos',
    staticData: { title: 'Todos' },
    validateSearch: (s: Record<string, unknown>): TodoSearch => ({ scope: oneOf(s.scope, ['personal', 'org'] as const) }),
    loaderDeps: ({ search }) => search,
    // The todos are read while the page's code loads (not awaited, as the board's).
    loader: ({ context: { queryClient }, deps }) => void queryClient.prefetchQuery(todosQuery(deps.scope)),
    component: page(() => import('./pages/todos'), 'TodosPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/snippets',
    staticData: { title: 'Snippets' },
    validateSearch: (s: Record<string, unknown>): SnippetSearch => ({
      q: str(s.q),
      type: oneOf(s.type, ['sql', 'json', 'html', 'txt'] as const),
      tag: str(s.tag),
    }),
    component: page(() => import('./pages/snippets'), 'SnippetsPage'),
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/snippets/$key', staticData: { title: 'Snippet' }, component: page(() => import('./pages/snippet'), 'SnippetPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/milestones', staticData: { title: 'Milestones' }, component: page(() => import('./pages/milestones'), 'MilestonesPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/milestones/$ref', staticData: { title: 'Milestone' }, component: page(() => import('./pages/milestone'), 'MilestonePage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings', staticData: { title: 'Settings' }, component: page(() => import('./pages/settings/profile'), 'ProfilePage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings/api-keys', staticData: { title: 'API keys' }, component: page(() => import('./pages/settings/api-keys'), 'ApiKeysPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings/sessions', staticData: { title: 'Sessions' }, component: page(() => import('./pages/settings/sessions'), 'SessionsPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings/members', staticData: { title: 'Members' }, component: page(() => import('./pages/settings/members'), 'MembersPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/settings/webhooks', staticData: { title: 'Webhooks' }, component: page(() => import('./pages/settings/webhooks'), 'WebhooksPage') }),
]);

export function makeRouter(queryClient: QueryClient) {
  return createRouter({ routeTree, context: { queryClient }, defaultErrorComponent: RouteError, defaultPreload: 'intent', defaultPreloadStaleTime: 0, scrollRestoration: true });
}

declare module '@tanstack/react-router' {
  interface StaticDataRouteOption {
    /** The page's name in the document title, until the page names itself (usePageTitle). */
    title?: string;
  }
  interface Register {
    router: ReturnType<typeof makeRouter>;
  }
}
