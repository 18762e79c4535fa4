import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from '../domain/authenticate.js';
import type { Face, Principal, Scope } from '../domain/context.js';
import { faceOfUserAgent } from '../domain/faces.js';
import { execute, type Runtime } from '../operations/execute.js';
import { validationFailed } from '../domain/errors.js';
import { requireScope } from '../domain/permissions.js';
import { validateInput } from '../operations/input-validation.js';
import type { Operation } from '../operations/operation.js';
import { IDEMPOTENCY_KEY_MESSAGE, IDEMPOTENCY_KEY_PATTERN } from '../domain/idempotency-key.js';

export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

function idempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw validationFailed([
      { field: 'Idempotency-Key', code: 'invalid', message: `Idempotency-Key ${IDEMPOTENCY_KEY_MESSAGE}.` },
    ]);
  }
  return key;
}

export function principalOf(request: FastifyRequest): Principal {
  if (request.principal) return request.principal;
  throw request.authError ?? unauthorized();
}

/**
 * The principals of the CLI and MCP faces, made once per cached principal: the auth cache
 * hands every request of a token the same object, and what is kept per principal (getMe's
 * serialized answer) lasts only while the request's principal is that same object.
 */
const withFaces = new WeakMap<Principal, Partial<Record<Face, Principal>>>();

/** The caller of a `/v1` route, with the face it came through (its events' `actor.face`; absent is `api`). */
export function callerOf(request: FastifyRequest): Principal {
  const principal = principalOf(request);
  if (principal.sessionId !== undefined) return principal;
  const face = faceOfUserAgent(request.headers['user-agent']);
  if (face === (principal.face ?? 'api')) return principal;
  let faced = withFaces.get(principal);
  if (faced === undefined) withFaces.set(principal, (faced = {}));
  return (faced[face] ??= { ...principal, face });
}

/**
 * A write's preParsing hook: a caller without a valid token, or whose token lacks the
 * operation's scope (a read-only token's POST), is refused before the body is read (no 4 MiB
 * upload, 413 or 415 first). `execute` checks the scope again, with everything else.
 */
function refuseBeforeBody(op: Operation) {
  // Typed wider than the table's: an operation that names no scope leaves the domain to decide.
  const scope: Scope | null = op.scope;
  return async <T>(request: FastifyRequest, _reply: unknown, payload: T): Promise<T> => {
    const principal = principalOf(request);
    if (scope !== null) requireScope(principal, scope);
    return payload;
  };
}

/**
 * One Fastify route per operation; the handler only gathers input and presents the outcome.
 * Input is validated by `validateInput` (the same function MCP and Slack use), not by
 * Fastify's schema compiler: every part is checked at once, strictly, with the same words.
 */
export function registerOperationRoutes(app: FastifyInstance, ops: readonly Operation[], rt: Runtime): void {
  for (const op of ops) {
    app.route({
      method: op.method,
      url: `/v1${fastifyPath(op.path)}`,
      // Fastify reads no body for GET, so a read skips the hook.
      ...(op.method === 'GET' ? {} : { preParsing: refuseBeforeBody(op) }),
      handler: async (request, reply) => {
        const principal = callerOf(request);
        const input = validateInput(op, { path: request.params, query: request.query, body: request.body });
        const key = op.readOnly ? undefined : idempotencyKey(request);
        const outcome = await execute(rt, op, principal, input, key);
        // The status comes from the operation's own table entry.
        reply.code(outcome.status);
        if (op.noStore) reply.header('Cache-Control', 'no-store');
        if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
        if (outcome.body === null) return reply.send();
        return reply.type('application/json; charset=utf-8').send(outcome.body);
      },
    });
  }
}
