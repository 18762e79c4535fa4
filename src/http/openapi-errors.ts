import type { OpenAPIV3_1 } from 'openapi-types';
import type { Operation } from '../operations/operation.js';

/**
 * The error answers of the API, once each: the `Error` envelope, the headers, and one
 * response per status. Which statuses an operation can answer is derived from what the
 * operation is (see `errorStatuses`), so a new operation in the table is described fully
 * without a word about its errors.
 */

const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });

export const schemas: Record<string, OpenAPIV3_1.SchemaObject> = {
  Error: {
    type: 'object',
    description: 'Every error, whatever the status: the same envelope. `request_id` equals the X-Request-Id header; quote it when reporting a problem.',
    required: ['code', 'http_status', 'user_message', 'request_id'],
    properties: {
      code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', description: 'Stable, machine-readable: `validation_failed`, `card_not_found`, `rate_limited`…', examples: ['card_not_found'] },
      http_status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status, repeated' },
      user_message: { type: 'string', minLength: 1, description: 'One or two plain sentences a person can act on' },
      request_id: { type: 'string', pattern: '^req_[0-9a-f]{24}$' },
      errors: { type: 'array', items: ref('schemas', 'FieldError'), description: 'On 422 only: one item per problem' },
    },
    additionalProperties: false,
  },
  FieldError: {
    type: 'object',
    description: 'One problem with one field of the request.',
    required: ['field', 'code', 'message'],
    properties: {
      field: { type: 'string', description: 'The field as sent (`due_on`, `scopes.1`), or `body`, `query`, `path` for the part as a whole', examples: ['due_on'] },
      code: {
        type: 'string',
        description: '`unknown_field`, `required`, `invalid_type`, `invalid_format`, `invalid_value`, `too_small`, `too_big`, `invalid_characters`, `too_deep`, `empty`, `invalid`…',
        examples: ['unknown_field'],
      },
      message: { type: 'string', minLength: 1, description: 'A sentence naming the field and what it must be', examples: ['due_on must be a date as YYYY-MM-DD (such as 2030-01-31), today or tomorrow.'] },
    },
    additionalProperties: false,
  },
};

export const headers: Record<string, OpenAPIV3_1.HeaderObject> = {
  'X-Request-Id': {
    description: 'Unique per response; equal to `request_id` in an error.',
    required: true,
    schema: { type: 'string', pattern: '^req_[0-9a-f]{24}$' },
  },
  'RateLimit-Limit': { description: 'Requests allowed per token (or address, before authentication) per minute.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  'Cache-Control': {
    description: 'On answers that carry a secret or a sign-in link: no cache (a proxy, the browser) may keep them.',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
  'Idempotent-Replayed': {
    description: 'Present on a replay of an earlier request with the same Idempotency-Key: the stored response, byte for byte.',
    schema: { type: 'string', enum: ['true'] },
  },
};

export const idempotencyKey: OpenAPIV3_1.ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same body replays the first response (kept 24 hours per token and operation); with another body it is 409 `idempotency_key_reused`, while the first is still running 409 `idempotency_key_in_use`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

/** Headers every answer of an operation carries; `Retry-After` where the answer asks to come back. */
export function responseHeaders(extra: string[] = []): Record<string, OpenAPIV3_1.ReferenceObject> {
  const names = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', ...extra];
  return Object.fromEntries(names.map((n) => [n, ref('headers', n)]));
}

interface ErrorAnswer {
  name: string;
  description: string;
  code: string;
  message: string;
  retry?: boolean;
}

const ERRORS: Record<number, ErrorAnswer> = {
  400: {
    name: 'BadRequest',
    description: 'The request could not be read: an address that is not valid percent-encoding, a body that is not JSON (`malformed_request`), or a cursor not made for this list and these filters (`invalid_cursor`).',
    code: 'malformed_request',
    message: 'The request could not be read.',
  },
  401: { name: 'Unauthorized', description: 'No valid credentials: a bearer token missing, malformed, expired or revoked, or a session ended or expired (`unauthorized`).', code: 'unauthorized', message: 'A valid API token is required.' },
  403: {
    name: 'Forbidden',
    description: "The token lacks the operation's scope (`insufficient_scope`), or the caller's role or kind does not allow it (`forbidden_role`, `gated_move_requires_human`…).",
    code: 'insufficient_scope',
    message: 'This token does not have the write scope.',
  },
  404: {
    name: 'NotFound',
    description: 'A thing the request names does not exist, or belongs to another organization (`<resource>_not_found`; the message names the identifier).',
    code: 'card_not_found',
    message: 'No card with the identifier "ENG-42".',
  },
  408: {
    name: 'RequestTimeout',
    description: 'The request did not arrive in time: its headers or body came too slowly (`request_timeout`). Send it again; nothing was done.',
    code: 'request_timeout',
    message: 'The request took too long to arrive.',
  },
  409: {
    name: 'Conflict',
    description: 'The request conflicts with the current state (a slug or ref already taken, the last owner…), or reuses an Idempotency-Key (`idempotency_key_reused`, `idempotency_key_in_use`).',
    code: 'idempotency_key_reused',
    message: 'This Idempotency-Key was used with a different request.',
  },
  413: { name: 'PayloadTooLarge', description: 'The body is over the limit (4 MiB; a snippet body over 1 MiB of UTF-8).', code: 'payload_too_large', message: 'The request body is too large.' },
  415: { name: 'UnsupportedMediaType', description: 'A body that is not `application/json` in UTF-8 (another `charset` is refused too).', code: 'unsupported_media_type', message: 'Send request bodies as application/json.' },
  422: {
    name: 'ValidationFailed',
    description: 'One or more fields are not valid, or not fields of this operation at all (`unknown_field`): `errors` lists each problem once, as a sentence.',
    code: 'validation_failed',
    message: 'limit must be at most 100.',
  },
  429: { name: 'RateLimited', description: 'Too many requests for this token; retry after Retry-After seconds (`rate_limited`).', code: 'rate_limited', message: 'Too many requests; retry in 12 s.', retry: true },
  431: { name: 'HeadersTooLarge', description: 'The address or the headers are larger than the server reads.', code: 'headers_too_large', message: 'The request headers are too large.' },
  500: {
    name: 'InternalError',
    description: 'A fault on the server; nothing about it is in the answer but the request id. Retry with backoff.',
    code: 'internal_error',
    message: 'Something went wrong on our side; retry with backoff and quote the request id if it persists.',
  },
  503: {
    name: 'ServiceUnavailable',
    description: 'The database is unreachable, the server is shutting down, or (jobs) jobs cannot run here; retry after Retry-After seconds.',
    code: 'service_unavailable',
    message: 'The service is briefly unavailable; retry with backoff.',
    retry: true,
  },
};

/**
 * The statuses an operation can answer besides its success, from what it is: everything
 * can be unreadable, unauthenticated, out of scope, invalid (unknown query fields
 * included), rate-limited or failing; an operation that names things can miss them (404);
 * any request can arrive too slowly (408); a write can conflict, including on its Idempotency-Key (409), and carries a body that can
 * be too large or not JSON (413, 415).
 */
export function errorStatuses(op: Operation): number[] {
  const statuses = [400, 401, 403];
  if (op.namesThings) statuses.push(404);
  statuses.push(408);
  if (!op.readOnly) statuses.push(409, 413, 415);
  statuses.push(422, 429, 431, 500, 503);
  return statuses;
}

/** The statuses the OpenAPI document's own address can answer besides 200: a query parameter (422), and what any /v1 request can meet (an unreadable or too slow request, too many, too large headers, a fault). */
export const DOCUMENT_ERROR_STATUSES = [400, 408, 422, 429, 431, 500, 503];

export function errorResponseRefs(statuses: readonly number[]): Record<string, OpenAPIV3_1.ReferenceObject> {
  return Object.fromEntries(statuses.map((status) => [String(status), ref('responses', ERRORS[status]!.name)]));
}

export const errorResponses: Record<string, OpenAPIV3_1.ResponseObject> = Object.fromEntries(
  Object.entries(ERRORS).map(([status, e]) => {
    const schema: OpenAPIV3_1.SchemaObject = {
      allOf: [ref('schemas', 'Error')],
      properties: { http_status: { const: Number(status) } },
      ...(status === '422' ? { required: ['errors'] } : {}),
    } as OpenAPIV3_1.SchemaObject;
    const example = {
      code: e.code,
      http_status: Number(status),
      user_message: e.message,
      request_id: 'req_5f0c2a9e8b7d6c5b4a392817',
      ...(status === '422' ? { errors: [{ field: 'limit', code: 'too_big', message: 'limit must be at most 100.' }] } : {}),
    };
    const response: OpenAPIV3_1.ResponseObject = {
      description: e.description,
      headers: responseHeaders(e.retry ? ['Retry-After'] : []),
      content: { 'application/json': { schema, example } },
    };
    return [e.name, response];
  }),
);
