import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from '../domain/authenticate.js';
import type { Principal } from '../domain/context.js';
import { execute, type Runtime } from '../operations/execute.js';
import { validationFailed } from '../domain/errors.js';
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

async function refuseUnauthenticatedBody<T>(request: FastifyRequest, _reply: unknown, payload: T): Promise<T> {
  principalOf(request);
  return payload;
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
      // Fail on auth before the body is read (no 4 MiB upload, 413 or 415 for a caller without a
      // token). Fastify reads no body for GET, so a read skips the hook.
      ...(op.method === 'GET' ? {} : { preParsing: refuseUnauthenticatedBody }),
      handler: async (request, reply) => {
        const principal = principalOf(request);
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
