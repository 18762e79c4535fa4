import {
  addComment,
  addCommentInput,
  commentKeyInput,
  commentSchema,
  countComments,
  deleteComment,
  listComments,
  listCommentsInput,
  updateComment,
  updateCommentInput,
} from '../domain/comments.js';
import { cardKeyInput } from '../domain/cards.js';
import { pageOf } from '../domain/fields.js';
import { z } from 'zod';
import { defineCoreOperation, defineOperation } from './operation.js';

/** A card's discussion (contract §11). */
export const commentOperations = [
  defineOperation({
    name: 'listComments',
    summary: "A card's comments, oldest first",
    group: 'comments',
    method: 'GET',
    path: '/cards/{id}/comments',
    scope: 'read',
    params: listCommentsInput.pick({ id: true }),
    query: listCommentsInput.omit({ id: true }),
    output: pageOf(commentSchema).describe("One page of the card's comments, oldest first; `next_cursor` is present when there are more"),
    run: (ctx, input) => listComments(ctx, input),
  }),
  defineOperation({
    name: 'addComment',
    summary: 'Comment on a card (Markdown); `@name` or `@mem_…` mentions a member',
    group: 'comments',
    method: 'POST',
    path: '/cards/{id}/comments',
    scope: 'write',
    params: addCommentInput.pick({ id: true }),
    body: addCommentInput.omit({ id: true }),
    output: commentSchema,
    status: 201,
    run: (ctx, input) => addComment(ctx, input),
  }),
  defineOperation({
    name: 'updateComment',
    summary: "Rewrite a comment's body; only its author may",
    group: 'comments',
    method: 'PATCH',
    path: '/cards/{id}/comments/{comment_id}',
    scope: 'write',
    params: updateCommentInput.pick({ id: true, comment_id: true }),
    body: updateCommentInput.omit({ id: true, comment_id: true }),
    output: commentSchema,
    idempotent: true,
    run: (ctx, input) => updateComment(ctx, input),
  }),
  defineOperation({
    name: 'deleteComment',
    summary: 'Delete a comment; its author, an owner or an admin may',
    group: 'comments',
    method: 'DELETE',
    path: '/cards/{id}/comments/{comment_id}',
    scope: 'write',
    params: commentKeyInput,
    run: (ctx, input) => deleteComment(ctx, input),
  }),
];

/** How many comments a card has: Slack's `/card` shows the count (no face but in-process callers needs it). */
export const countCommentsOp = defineCoreOperation({
  name: 'countComments',
  summary: "How many comments a card has",
  group: 'comments',
  scope: 'read',
  readOnly: true,
  input: cardKeyInput,
  output: z.object({ count: z.number().int() }),
  run: (ctx, input) => countComments(ctx, input),
});
