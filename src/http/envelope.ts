import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { databaseFailure } from '../domain/database-failures.js';
import { AppError, type FieldError } from '../domain/errors.js';
import { briefError } from '../log-error.js';

export interface Envelope {
  code: string;
  http_status: number;
  user_message: string;
  request_id: string;
  errors?: FieldError[];
}

const GENERIC: Record<number, [string, string]> = {
  400: ['malformed_request', 'The request could not be read.'],
  401: ['unauthorized', 'A valid API token is required.'],
  403: ['forbidden', 'You are not allowed to do that.'],
  404: ['not_found', 'Nothing was found at this address.'],
  405: ['method_not_allowed', 'This address does not accept that method.'],
  406: ['not_acceptable', 'This address cannot answer in the requested format.'],
  408: ['request_timeout', 'The request took too long to arrive.'],
  409: ['conflict', 'The request conflicts with the current state.'],
  413: ['payload_too_large', 'The request body is too large.'],
  414: ['uri_too_long', 'The address is too long.'],
  415: ['unsupported_media_type', 'Send request bodies as application/json.'],
  422: ['validation_failed', 'Some fields are not valid.'],
  429: ['rate_limited', 'Too many requests; retry after the time in Retry-After.'],
  431: ['headers_too_large', 'The request headers are too large.'],
  500: ['internal_error', 'Something went wrong on our side; retry with backoff and quote the request id if it persists.'],
  503: ['service_unavailable', 'The service is briefly unavailable; retry with backoff.'],
};

export function envelopeFor(status: number, requestId: string, code?: string, message?: string, errors?: FieldError[]): Envelope {
  const generic = GENERIC[status] ?? (status >= 500 ? GENERIC[500]! : GENERIC[400]!);
  const env: Envelope = {
    code: code ?? generic[0],
    http_status: status,
    user_message: message ?? generic[1],
    request_id: requestId,
  };
  if (errors) env.errors = errors;
  return env;
}

/** The longest path parameter the router matches. */
export const MAX_PARAM_LENGTH = 500;
/** The answer (404) to a longer one: no identifier is that long, so nothing is there. */
export const PARAM_TOO_LONG = `Nothing was found at this address: no identifier is longer than ${MAX_PARAM_LENGTH} characters.`;

/**
 * What Fastify's own client errors mean, in words the caller can act on (its messages name
 * internals such as the URL it could not decode, so they never reach the envelope).
 */
const FASTIFY_CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON; send one JSON object.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body is empty; send one JSON object or leave out Content-Type.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body that was sent.',
  FST_ERR_BAD_URL: 'The address is not valid percent-encoding; encode it as UTF-8.',
};

export interface MappedError {
  status: number;
  envelope: Envelope;
  /** Retry-After for answers that ask the client to come back (503). */
  retryAfter?: string;
}

/**
 * The one mapping from any thrown error to a status and the envelope; the HTTP error handler
 * and the MCP tools both answer with it. Only AppError messages and Fastify's own
 * client-error codes reach the envelope; anything else is logged and answered with a generic
 * 500 or 503, never its message, stack, SQL or a path.
 */
export function mapError(err: unknown, id: string, log: FastifyBaseLogger): MappedError {
  if (err instanceof AppError) {
    return { status: err.status, envelope: envelopeFor(err.status, id, err.code, err.userMessage, err.fields) };
  }
  const fe = err as FastifyError;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (fe.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    // Fastify says 414, which no operation declares; an identifier that long exists nowhere.
    return { status: 404, envelope: envelopeFor(404, id, 'not_found', PARAM_TOO_LONG) };
  }
  if (status >= 400 && status < 500 && typeof fe.code === 'string' && fe.code.startsWith('FST_')) {
    return { status, envelope: envelopeFor(status, id, undefined, FASTIFY_CLIENT_ERRORS[fe.code]) };
  }
  if (status >= 400 && status < 500 && err instanceof SyntaxError) {
    return { status: 400, envelope: envelopeFor(400, id, undefined, FASTIFY_CLIENT_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY) };
  }
  const failure = databaseFailure(err);
  if (failure === 'invalid_value') {
    // A value the request carried, such as text with NUL.
    return {
      status: 422,
      envelope: envelopeFor(422, id, 'invalid_value', 'A value in the request cannot be stored or compared.', [
        { field: 'request', code: 'invalid_value', message: 'A value in this request is out of the range tack can store; check the numbers and dates sent.' },
      ]),
    };
  }
  if (failure === 'unavailable') {
    // One short record per request: an outage fails every request the same way, and a stack
    // per request says nothing more.
    log.error({ db_error: briefError(err) }, 'database unavailable; answered 503');
    return { status: 503, envelope: envelopeFor(503, id), retryAfter: '1' };
  }
  // Still conflicting after the retries of `execute`: nothing was applied; the client may retry.
  if (failure === 'busy') {
    log.warn({ db_error: briefError(err) }, 'database conflict persisted after retries');
    return { status: 503, envelope: envelopeFor(503, id, 'database_busy', 'The database was busy with conflicting changes; nothing was applied. Retry shortly.'), retryAfter: '1' };
  }
  log.error({ err }, 'unhandled error');
  return { status: 500, envelope: envelopeFor(500, id) };
}

/**
 * The client went away before its body arrived (Node fails the request stream with
 * `ECONNRESET` "aborted"): nothing of ours failed, and nobody is left to read an answer.
 */
function clientClosed(err: unknown, request: FastifyRequest): boolean {
  const code = (err as { code?: unknown }).code;
  return (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') && (request.raw.aborted || request.raw.readableAborted);
}

export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (clientClosed(err, request)) {
    request.log.info({ method: request.method, url: request.routeOptions.url }, 'client closed the request before its body arrived');
    return reply.code(400).type('application/json; charset=utf-8').send(envelopeFor(400, request.id));
  }
  const mapped = mapError(err, request.id, request.log);
  if (err instanceof AppError && err.status === 429) reply.header('Retry-After', String(reply.getHeader('RateLimit-Reset') ?? 60));
  else if (mapped.retryAfter) reply.header('Retry-After', mapped.retryAfter);
  return reply.code(mapped.status).type('application/json; charset=utf-8').send(mapped.envelope);
}
