import { z } from 'zod';
import { boardSchema } from '../domain/boards.js';
import { cardMovesSchema } from '../domain/card-moves.js';
import { cardSchema } from '../domain/cards.js';
import { commentSchema } from '../domain/comments.js';
import { cardLinksSchema } from '../domain/github-links.js';
import { criterionSchema } from '../domain/criteria.js';
import { eventSchema } from '../domain/events.js';
import { jobResultSchema } from '../domain/jobs.js';
import { meSchema } from '../domain/me.js';
import { listedMemberSchema } from '../domain/members.js';
import { memberSchema, orgSchema } from '../domain/member-schema.js';
import { milestoneSchema } from '../domain/milestones.js';
import { searchResultSchema } from '../domain/search.js';
import { sessionSchema } from '../domain/sessions.js';
import { signinLinkSchema } from '../domain/signin-links.js';
import { snippetLinkSchema, snippetSchema, snippetVersionSchema } from '../domain/snippets/fields.js';
import { todoSchema } from '../domain/todos.js';
import { createdTokenSchema, tokenSchema } from '../domain/tokens.js';
import { webhookDeliverySchema } from '../domain/webhook-deliveries.js';
import { createdWebhookSchema, webhookSchema } from '../domain/webhooks.js';

/**
 * What the operations answer with, each under the name clients know it by: the OpenAPI
 * document describes each one once, in `components.schemas`, and refers to it (`$ref`)
 * wherever it appears, so a generated client has one `Card` type, not one per operation. The
 * names are the nouns of the table's operationIds (`getCard` answers a `Card`). Registered by
 * the schema object itself, so a field added to a schema is in its named description at once;
 * an operation answering with a schema that is not listed here fails the OpenAPI test.
 */
export const resources = z.registry<{ id: string }>();

const NAMES: [z.ZodType, string][] = [
  [meSchema, 'Me'],
  [orgSchema, 'Organization'],
  [memberSchema, 'Member'],
  [listedMemberSchema, 'ListedMember'],
  [tokenSchema, 'Token'],
  [createdTokenSchema, 'CreatedToken'],
  [snippetSchema, 'Snippet'],
  [snippetVersionSchema, 'SnippetVersion'],
  [snippetLinkSchema, 'SnippetLink'],
  [boardSchema, 'Board'],
  [cardSchema, 'Card'],
  [cardMovesSchema, 'CardMoves'],
  [cardLinksSchema, 'CardLinks'],
  [criterionSchema, 'Criterion'],
  [commentSchema, 'Comment'],
  [todoSchema, 'Todo'],
  [milestoneSchema, 'Milestone'],
  [jobResultSchema, 'JobResult'],
  [sessionSchema, 'Session'],
  [signinLinkSchema, 'SigninLink'],
  [searchResultSchema, 'SearchResult'],
  [eventSchema, 'Event'],
  [webhookSchema, 'Webhook'],
  [createdWebhookSchema, 'CreatedWebhook'],
  [webhookDeliverySchema, 'WebhookDelivery'],
];

for (const [schema, id] of NAMES) resources.add(schema, { id });
