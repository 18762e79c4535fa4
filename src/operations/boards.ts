import { boardSchema, createBoard, createBoardInput, listBoards, listBoardsInput, updateBoard, updateBoardInput } from '../domain/boards.js';
import { pageOf } from '../domain/fields.js';
import { defineOperation } from './operation.js';

export const boardOperations = [
  defineOperation({
    name: 'listBoards',
    summary: 'Boards of the organization, newest first',
    group: 'boards',
    method: 'GET',
    path: '/boards',
    scope: 'read',
    query: listBoardsInput,
    output: pageOf(boardSchema),
    run: (ctx, input) => listBoards(ctx, input),
  }),
  defineOperation({
    name: 'createBoard',
    summary: 'Create a board with a slug, a card ref prefix and a gate (owner or admin, config:write)',
    group: 'boards',
    method: 'POST',
    path: '/boards',
    scope: 'config:write',
    body: createBoardInput,
    output: boardSchema,
    status: 201,
    run: (ctx, input) => createBoard(ctx, input),
  }),
  defineOperation({
    name: 'updateBoard',
    summary: 'Rename a board, change its ref prefix or its gate (owner or admin, config:write)',
    group: 'boards',
    method: 'PATCH',
    path: '/boards/{id}',
    scope: 'config:write',
    params: updateBoardInput.pick({ id: true }),
    body: updateBoardInput.omit({ id: true }),
    output: boardSchema,
    idempotent: true,
    run: (ctx, input) => updateBoard(ctx, input),
  }),
];
