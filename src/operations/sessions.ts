import { pageOf } from '../domain/fields.js';
import { deleteSession, deleteSessionInput, listSessions, listSessionsInput, sessionSchema } from '../domain/sessions.js';
import { createSigninLink, createSigninLinkInput, signinLinkSchema } from '../domain/signin-links.js';
import { defineOperation } from './operation.js';

/** The web app's sign-in links and sessions (contract §8). */
export const sessionOperations = [
  defineOperation({
    name: 'createSigninLink',
    summary: 'Make a one-time sign-in link to the web app (15 minutes): yourself with write, another member with config:write, never one above your role',
    group: 'members',
    method: 'POST',
    path: '/members/{id}/signin-links',
    scope: 'write',
    params: createSigninLinkInput,
    output: signinLinkSchema.describe('Created: the sign-in link (`url`, one use) and when it expires'),
    status: 201,
    noStore: true,
    run: (ctx, input) => createSigninLink(ctx, input),
  }),
  defineOperation({
    name: 'listSessions',
    summary: "Your web app sessions, newest first; `current` is this request's own",
    group: 'sessions',
    method: 'GET',
    path: '/sessions',
    scope: 'read',
    query: listSessionsInput,
    output: pageOf(sessionSchema),
    run: (ctx, input) => listSessions(ctx, input),
  }),
  defineOperation({
    name: 'deleteSession',
    summary: "End a web app session (`current`: this one); it gets 401 from its next request on. Yours with any scope; another member's with config:write as owner or admin, never one above your role",
    group: 'sessions',
    method: 'DELETE',
    path: '/sessions/{id}',
    scope: null,
    params: deleteSessionInput,
    changesAuth: true,
    run: (ctx, input) => deleteSession(ctx, input),
  }),
];
