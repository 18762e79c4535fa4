import { queryOptions, useQuery } from '@tanstack/react-query';
import { allPages, api, ok } from './client';
import { STATUSES } from './types';
import { mayWrite } from '../lib/may-write';

/** Shared reads: who I am, the members, boards and milestones (short lists, read whole). */

export const keys = {
  me: ['me'] as const,
  members: ['members'] as const,
  boards: ['boards'] as const,
  milestones: ['milestones'] as const,
  cards: (board: string, filters: object) => ['cards', board, filters] as const,
  board: (slug: string) => ['board', slug] as const,
  card: (ref: string) => ['card', ref] as const,
  cardById: (id: string) => ['card-by-id', id] as const,
  milestoneStatus: (ref: string) => ['milestone-status', ref] as const,
  milestoneCards: (ref: string) => ['milestone-cards', ref] as const,
  criteria: (ref: string) => ['criteria', ref] as const,
  /** A card's history (getCardActivity) and discussion (listComments): the event stream invalidates these. */
  cardActivity: (ref: string) => ['card-activity', ref] as const,
  cardComments: (ref: string) => ['card-comments', ref] as const,
  moves: (ref: string) => ['moves', ref] as const,
  boardMoves: (slug: string) => ['board-moves', slug] as const,
  todos: (scope: string) => ['todos', scope] as const,
  snippets: (filters: object) => ['snippets', filters] as const,
  snippet: (key: string) => ['snippet', key] as const,
};

/**
 * A board's cards, every page, with the query string's filters: the four columns read in
 * parallel (a 500-card board is not five requests in a row), each newest first.
 */
export function boardCardsQuery(slug: string, filters: { assignee?: 'me' | undefined; milestone?: string | undefined }) {
  return queryOptions({
    queryKey: keys.cards(slug, filters),
    queryFn: async () => {
      const columns = await Promise.all(
        STATUSES.map((status) =>
          allPages((cursor) =>
            ok(api.GET('/cards', { params: { query: { board: slug, status, limit: 100, cursor, assignee: filters.assignee, milestone: filters.milestone } } })),
          ),
        ),
      );
      return columns.flat();
    },
  });
}

/** Open todos (every page) and the latest done ones, of a scope (none: both). */
export function todosQuery(scope: 'personal' | 'org' | undefined) {
  return queryOptions({
    queryKey: keys.todos(scope ?? 'all'),
    queryFn: async () => {
      const [open, done] = await Promise.all([
        allPages((cursor) => ok(api.GET('/todos', { params: { query: { done: false, scope, limit: 100, cursor } } }))),
        ok(api.GET('/todos', { params: { query: { done: true, scope, limit: 25 } } })),
      ]);
      return [...open, ...done.data];
    },
  });
}

export function boardQuery(slug: string) {
  return queryOptions({ queryKey: keys.board(slug), queryFn: () => ok(api.GET('/boards/{id}', { params: { path: { id: slug } } })) });
}

/** One card by ref (or id), as getCard answers it. */
export function cardQuery(ref: string) {
  return queryOptions({ queryKey: keys.card(ref), queryFn: () => ok(api.GET('/cards/{id}', { params: { path: { id: ref } } })) });
}

export const meQuery = queryOptions({ queryKey: keys.me, queryFn: () => ok(api.GET('/me')), staleTime: 60_000 });

export const membersQuery = queryOptions({
  queryKey: keys.members,
  queryFn: () => allPages((cursor) => ok(api.GET('/members', { params: { query: { limit: 100, cursor } } }))),
  staleTime: 60_000,
});

export function useMe() {
  return useQuery(meQuery);
}

/**
 * Today's date for the caller, as tack says it (getMe's `today`, in their zone); undefined
 * until it is known. getMe is read again after the caller's midnight, so a page left open
 * over night moves on to the new day.
 */
export function useToday(): string | undefined {
  return useQuery({ ...meQuery, refetchInterval: 5 * 60_000 }).data?.today;
}

/**
 * Whether the caller may change things (see `mayWrite`); false until getMe has answered, so
 * nothing editable shows before it is known.
 */
export function useMayWrite(): boolean {
  return mayWrite(useMe().data);
}

export function useMembers() {
  return useQuery(membersQuery);
}

export function useBoards() {
  return useQuery({
    queryKey: keys.boards,
    queryFn: () => allPages((cursor) => ok(api.GET('/boards', { params: { query: { limit: 100, cursor } } }))),
  });
}

export const milestonesQuery = queryOptions({
  queryKey: keys.milestones,
  queryFn: () => allPages((cursor) => ok(api.GET('/milestones', { params: { query: { limit: 100, cursor } } }))).then(byEndDate),
});

export function useMilestones() {
  return useQuery(milestonesQuery);
}

/** Where the caller may put a card of this board (listBoardMoves): the board's gate for them. */
export function boardMovesQuery(slug: string) {
  return queryOptions({
    queryKey: keys.boardMoves(slug),
    queryFn: () => ok(api.GET('/boards/{id}/moves', { params: { path: { id: slug } } })),
  });
}

/** Milestones by end date, the nearest first; those without one last, by ref. */
export function byEndDate<T extends { ends_on: string | null; ref: string }>(list: T[]): T[] {
  return [...list].sort((a, b) => (a.ends_on ?? '9999-99-99').localeCompare(b.ends_on ?? '9999-99-99') || a.ref.localeCompare(b.ref));
}
