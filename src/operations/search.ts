import { search, searchInput, searchResultsSchema } from '../domain/search.js';
import { defineOperation } from './operation.js';

export const searchOperations = [
  defineOperation({
    name: 'search',
    summary: 'Find cards, todos, snippets, milestones and boards as you type: every word matches, the last as a prefix; a ref first',
    group: 'search',
    method: 'GET',
    path: '/search',
    scope: 'read',
    query: searchInput,
    output: searchResultsSchema,
    run: (ctx, input) => search(ctx, input),
  }),
];
