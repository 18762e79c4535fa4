import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Operation } from '../operations/operation.js';
import { refuseAnyQuery } from '../operations/input-validation.js';
import { DOCUMENT_ERROR_STATUSES, errorResponseRefs, errorResponses, errorStatuses, headers, idempotencyKey, responseHeaders, schemas } from './openapi-errors.js';
import { SESSION_COOKIE } from './session-cookie.js';
import { fieldsOf, SchemaComponents } from './openapi-schemas.js';
import { jsonSchema } from '../operations/json-schema.js';
import { VERSION } from '../version.js';

type Group = Operation['group'];

/** One tag per resource group, with what it holds; the record makes a new group name its description. */
const TAGS: Record<Group, { description: string; noun: string }> = {
  me: { description: 'The caller: member, organization, scopes, and whether the token is an agent.', noun: 'caller' },
  members: { description: 'People of the organization, their roles, time zones and Slack links.', noun: 'member' },
  tokens: { description: 'API tokens. A secret is shown once, when the token is created.', noun: 'token' },
  snippets: { description: 'Versioned text with a revocable public link, searchable by full text.', noun: 'snippet' },
  boards: { description: 'Boards of cards, each with its card ref prefix and, when gated, a human-only move to done.', noun: 'board' },
  cards: { description: 'Work items on a board, moved through backlog, in_progress, in_review and done.', noun: 'card' },
  criteria: { description: "A card's acceptance criteria; a todo can mirror one.", noun: 'criterion' },
  comments: { description: "A card's discussion, in Markdown; `@name` or `@mem_…` mentions a member (stored as `@mem_…`). Only the author edits a comment; owners and admins may delete one.", noun: 'comment' },
  todos: { description: "The caller's own todos, personal or in the organization, with due dates read in the caller's time zone.", noun: 'todo' },
  milestones: { description: 'Sprints and deadlines, with the counts of their cards and criteria.', noun: 'milestone' },
  jobs: { description: 'Background jobs (due-todo reminders, milestone summaries), run on demand.', noun: 'job run' },
  sessions: { description: "The caller's web app sessions (signed in with a one-time link); ending one signs that browser out.", noun: 'session' },
  search: { description: 'Everything the caller may see, found as it is typed: cards, todos, snippets, milestones and boards.', noun: 'search result' },
  events: { description: 'What changed, who changed it (a person or an agent) and through which face; kept 90 days, also as a live stream.', noun: 'event' },
  webhooks: { description: 'Endpoints that receive events, signed (Standard Webhooks) and retried, and their delivery attempts.', noun: 'webhook' },
};

/** The document's own address, relative to the server URL (`/v1`). */
const DOCUMENT_PATH = '/openapi.json';
const DOCUMENT_TAG = { name: 'openapi', description: 'This document, for generating clients and validating traffic; it needs no token.' };

/**
 * The OpenAPI 3.1 document of `/v1`, built from the operation table: every operation with
 * its parameters, body, success and every error it can answer (openapi-errors.ts), each
 * resource it answers with once under its name (`components.schemas`), the headers, and the
 * bearer scheme. Nothing in it is written per operation. It describes its own address too
 * (`getOpenApiDocument`), so a proxy validating against it lets that request through; that
 * one is not in the table, so it is no MCP tool or CLI command.
 *
 * `appUrl` (APP_URL) makes `servers` absolute, so a generator or a validating proxy needs no
 * hand edit; `info.version` is the server's own version.
 */
export function openApiDocument(ops: readonly Operation[], appUrl: string): OpenAPIV3_1.Document {
  const paths: OpenAPIV3_1.PathsObject = {};
  const components = new SchemaComponents();
  for (const op of ops) {
    const item = (paths[op.path] ??= {}) as Record<string, OpenAPIV3_1.OperationObject>;
    item[op.method.toLowerCase()] = operationObject(op, components);
  }
  // Cast as above: openapi-types' path item is typed with OpenAPI 3.0's operation object.
  ((paths[DOCUMENT_PATH] ??= {}) as Record<string, OpenAPIV3_1.OperationObject>).get = documentOperation();
  const used = new Set(ops.map((op) => op.group));
  return {
    openapi: '3.1.0',
    info: {
      title: 'tack API',
      version: VERSION,
      description:
        'Snippets, cards, todos and milestones. Input is strict: a field an operation does not define is refused (422 `unknown_field`), never ignored. ' +
        'Every error is one envelope (`Error`). Lists are newest first, one page at a time: pass `next_cursor` back as `cursor`.',
      license: { name: 'UNLICENSED: private software, all rights reserved', identifier: 'LicenseRef-tack-proprietary' },
      contact: { name: 'The tack maintainers' },
    },
    servers: [{ url: `${appUrl.replace(/\/+$/, '')}/v1`, description: 'This server' }],
    // Either one: a token, or the web app's session cookie (section 8 of the contract).
    security: [{ bearer: [] }, { session: [] }],
    tags: [...(Object.keys(TAGS) as Group[]).filter((g) => used.has(g)).map((name) => ({ name, description: TAGS[name].description })), DOCUMENT_TAG],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'tack_live_…',
          description: 'A tack token: `Authorization: Bearer tack_live_…`. Made with createToken, or printed once at first start.',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description:
            "The web app's session, set by `POST /signin` with a one-time sign-in link's code. It acts with the scopes the member's role allows; a write must come from tack's own origin (else 403 `cross_site_request`). A request with an Authorization header ignores it.",
        },
      },
      // The resources first, by name, then the error envelope: a reader meets Card before FieldError.
      schemas: { ...sortedByName(components.schemas as Record<string, OpenAPIV3_1.SchemaObject>), ...schemas },
      headers,
      parameters: { IdempotencyKey: idempotencyKey },
      responses: errorResponses,
    },
  };
}

function sortedByName<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function operationObject(op: Operation, components: SchemaComponents): OpenAPIV3_1.OperationObject {
  const parameters: (OpenAPIV3_1.ParameterObject | OpenAPIV3_1.ReferenceObject)[] = [];
  if (op.params) {
    for (const f of fieldsOf(op.params)) parameters.push({ name: f.name, in: 'path', required: true, schema: f.schema, ...describe(f.description) });
  }
  if (op.query) {
    for (const f of fieldsOf(op.query)) parameters.push({ name: f.name, in: 'query', required: f.required, schema: f.schema, ...describe(f.description) });
  }
  if (!op.readOnly) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  const entry: OpenAPIV3_1.OperationObject = {
    operationId: op.name,
    summary: op.summary,
    description: `${op.summary}. ${op.scope === null ? 'Any token or session may call it, whatever its scopes: the operation checks who may' : `Needs a token with the \`${op.scope}\` scope`}.${op.readOnly ? '' : ' Send an Idempotency-Key to make retries safe.'}`,
    tags: [op.group],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: { [String(op.status)]: successResponse(op, components), ...errorResponseRefs(errorStatuses(op)) },
  };
  if (op.body) {
    const schema = components.schemaOf(op.body, 'input');
    const required = Array.isArray(schema.required) && schema.required.length > 0;
    // An empty PATCH is refused on every resource (422 `empty`): say so in the schema too.
    if (op.method === 'PATCH') schema.minProperties = 1;
    entry.requestBody = { required: required || op.method === 'PATCH', content: { 'application/json': { schema } } };
  }
  return entry;
}

/** GET /v1/openapi.json: no token, no parameters (any query parameter is refused, as on every operation). */
function documentOperation(): OpenAPIV3_1.OperationObject {
  return {
    operationId: 'getOpenApiDocument',
    summary: 'Get this OpenAPI document',
    description: 'This OpenAPI 3.1 document, generated from the code. Needs no token.',
    tags: [DOCUMENT_TAG.name],
    security: [],
    responses: {
      '200': {
        description: 'The OpenAPI 3.1 document of `/v1`.',
        headers: responseHeaders(),
        // Any OpenAPI 3.1 document: describing this one in itself would add nothing a reader needs.
        content: {
          'application/json': {
            schema: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' }, info: { type: 'object' }, paths: { type: 'object' } } },
          },
        },
      },
      ...errorResponseRefs(DOCUMENT_ERROR_STATUSES),
    },
  };
}

function successResponse(op: Operation, components: SchemaComponents): OpenAPIV3_1.ResponseObject {
  const response: OpenAPIV3_1.ResponseObject = {
    description: successDescription(op),
    headers: responseHeaders([...(op.readOnly ? [] : ['Idempotent-Replayed']), ...(op.noStore ? ['Cache-Control'] : [])]),
  };
  if (op.output) response.content = { 'application/json': { schema: components.schemaOf(op.output, 'output') } };
  return response;
}

function successDescription(op: Operation): string {
  const noun = TAGS[op.group].noun;
  const described = op.output?.description;
  if (op.status === 204) return `Done: the ${noun} is ${op.method === 'DELETE' ? 'gone' : 'changed'}; there is no content.`;
  if (described) return `${described}.`;
  if (isPage(op)) return `One page of ${op.group}, newest first; \`next_cursor\` is present when there are more.`;
  if (op.status === 201) return `Created: the new ${noun}.`;
  if (op.method === 'PATCH') return `The ${noun} as it is now.`;
  if (op.method === 'GET') return `The ${noun}.`;
  return `Done: the ${noun} as it is now.`;
}

function isPage(op: Operation): boolean {
  const properties = (jsonSchema(op.output!, 'output').properties ?? {}) as Record<string, { type?: unknown }>;
  return properties.data?.type === 'array' && 'next_cursor' in properties;
}

function describe(description: string | undefined): { description?: string } {
  return description ? { description } : {};
}

/**
 * Serves the document at GET /v1/openapi.json, without auth; built once, on first request
 * (after listening, so `appUrl` names the port the server really got).
 */
export function registerOpenApi(app: FastifyInstance, ops: readonly Operation[], appUrl: () => string): void {
  let cached: string | undefined;
  app.get(`/v1${DOCUMENT_PATH}`, async (request, reply) => {
    refuseAnyQuery(request.query);
    cached ??= JSON.stringify(openApiDocument(ops, appUrl()));
    return reply.type('application/json; charset=utf-8').send(cached);
  });
}
