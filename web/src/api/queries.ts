import { useQuery } from '@tanstack/react-query';
import { allPages, api, ok } from './client';

/** Shared reads: who I am, the members, boards and milestones (short lists, read whole). */

export const keys = {
  me: ['me'] as const,
  members: ['members'] as const,
  boards: ['boards'] as const,
  milestones: ['milestones'] as const,
  cards: (board: string, filters: object) => ['cards', board, filters] as const,
  card: (ref: string) => ['card', ref] as const,
  criteria: (ref: string) => ['criteria', ref] as const,
  moves: (ref: string) => ['moves', ref] as const,
  todos: (scope: string) => ['todos', scope] as const,
  snippets: (filters: object) => ['snippets', filters] as const,
  snippet: (key: string) => ['snippet', key] as const,
};

export function useMe() {
  return useQuery({ queryKey: keys.me, queryFn: () => ok(api.GET('/me')), staleTime: 60_000 });
}

export function useMembers() {
  return useQuery({
    queryKey: keys.members,
    queryFn: () => allPages((cursor) => ok(api.GET('/members', { params: { query: { limit: 100, cursor } } }))),
    staleTime: 60_000,
  });
}

export function useBoards() {
  return useQuery({
    queryKey: keys.boards,
    queryFn: () => allPages((cursor) => ok(api.GET('/boards', { params: { query: { limit: 100, cursor } } }))),
  });
}

export function useMilestones() {
  return useQuery({
    queryKey: keys.milestones,
    queryFn: () => allPages((cursor) => ok(api.GET('/milestones', { params: { query: { limit: 100, cursor } } }))),
  });
}
