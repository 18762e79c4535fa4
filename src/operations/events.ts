import { cardActivityInput, getCardActivity, listEvents, listEventsInput } from '../domain/event-list.js';
import { eventSchema } from '../domain/events.js';
import { pageOf } from '../domain/fields.js';
import { defineOperation } from './operation.js';

export const eventOperations = [
  defineOperation({
    name: 'listEvents',
    summary: 'What changed, who changed it and through which face: events newest first (kept 90 days), filtered by type or prefix (card.), subject (an id, or a card with its criteria, comments and todos), actor, agent and since',
    group: 'events',
    method: 'GET',
    path: '/events',
    scope: 'read',
    query: listEventsInput,
    output: pageOf(eventSchema),
    run: (ctx, input) => listEvents(ctx, input),
  }),
  defineOperation({
    name: 'getCardActivity',
    summary: "A card's history: its events and those of its criteria, comments and mirrored todos, newest first",
    group: 'cards',
    method: 'GET',
    path: '/cards/{id}/activity',
    scope: 'read',
    params: cardActivityInput.pick({ id: true }),
    query: cardActivityInput.omit({ id: true }),
    output: pageOf(eventSchema).describe("One page of the card's events, newest first; `next_cursor` is present when there are more"),
    run: (ctx, input) => getCardActivity(ctx, input),
  }),
];

/**
 * `GET /v1/events/stream` (src/http/event-stream.ts): not in the table (it answers a stream,
 * not a body), but its filters are read like `listEvents`' by `validateInput`.
 */
export const streamEventsOp = defineOperation({
  name: 'streamEvents',
  summary: "The caller's events as they happen (Server-Sent Events), with listEvents' filters",
  group: 'events',
  method: 'GET',
  path: '/events/stream',
  scope: 'read',
  query: listEventsInput.omit({ cursor: true, limit: true }),
  run: () => Promise.reject(new Error('streamEvents is served by src/http/event-stream.ts')),
});
