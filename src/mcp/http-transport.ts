import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { VERSION } from '../version.js';
import type { Principal } from '../domain/context.js';
import { AppError, validationFailed } from '../domain/errors.js';
import { mapError } from '../http/envelope.js';
import { utf8Text } from '../http/json-parser.js';
import { originOf } from '../http/same-origin.js';
import { principalOf } from '../http/routes.js';
import { execute, type Runtime } from '../operations/execute.js';
import { describeOperations } from '../operations/manifest.js';
import type { Operation } from '../operations/operation.js';
import { parseOperationInput } from '../operations/operation-input.js';
import { createToolServer, toolCatalog, usableBy, type ToolInvoker } from './tool-server.js';
import { allErrors, toolCall, type ToolCall } from './tool-arguments.js';
import { errorResult, successResult } from './tools.js';
import { INVALID_REQUEST, invalidMessage, malformedInitialize, PARSE_ERROR, unreadable } from './json-rpc-input.js';

export const MCP_PATH = '/mcp';

/** True for the MCP endpoint (with or without a trailing slash or a query). */
export function isMcpUrl(url: string): boolean {
  const path = url.split('?')[0] ?? url;
  return path === MCP_PATH || path === `${MCP_PATH}/`;
}

export interface McpHttpOptions {
  operations: readonly Operation[];
  runtime: Runtime;
  /** Counts `messages` more requests against the caller's rate limit (a batch's); throws 429 past it. */
  countMore: (request: FastifyRequest, reply: FastifyReply, messages: number) => Promise<void> | undefined;
}

/** A body that is not JSON, as the parser hands it on: answered in JSON-RPC's words, not the envelope's. */
const NOT_JSON = Symbol('not JSON');

/**
 * MCP's rule against DNS rebinding: a request that says it comes from a web page (`Origin`)
 * is served only from tack's own origin (APP_URL's). Not the Host's: a rebound name is the
 * Host too. Clients that are not browsers send no Origin.
 */
function refuseForeignOrigin(request: FastifyRequest, appUrl: string | undefined): void {
  const sent = request.headers.origin;
  if (sent === undefined) return;
  if (appUrl !== undefined && originOf(sent) === originOf(appUrl)) return;
  throw new AppError('forbidden_origin', 403, `MCP requests from a web page are taken from tack's own origin only, not from ${JSON.stringify(sent.slice(0, 200))}.`);
}

/** Headers of the SDK's answer that Fastify sets itself. */
const OWN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection']);

/**
 * Streamable HTTP at `POST /mcp`, stateless (a new MCP server per request, no session), with
 * JSON answers. The caller is the bearer token's principal, authenticated by the app's
 * onRequest hook as for `/v1`; tools run `execute()` in-process as that principal, so scopes,
 * roles and agent gates apply exactly as on `/v1`; a write's `idempotency_key` argument goes
 * to `execute` as the header's key would, so a retried call is applied once.
 */
export async function mcpHttpTransport(app: FastifyInstance, opts: McpHttpOptions): Promise<void> {
  const catalog = toolCatalog(describeOperations(opts.operations).operations);
  const byName = new Map(opts.operations.map((op) => [op.name, op]));

  const invoker = (request: FastifyRequest, principal: Principal): ToolInvoker => async (entry, args) => {
    const op = byName.get(entry.name)!;
    try {
      const call = toolCall(entry, args);
      const input = call.errors.length === 0 ? parseOperationInput(op, call.input) : refuse(op, call, args);
      const outcome = await execute(opts.runtime, op, principal, input, call.idempotencyKey);
      return successResult(entry, outcome.body === null ? undefined : JSON.parse(outcome.body), outcome.replayed);
    } catch (err) {
      return errorResult(mapError(err, request.id, request.log).envelope);
    }
  };

  // This plugin's own JSON parser: a body that is not JSON is JSON-RPC's parse error, and
  // keys Fastify's parser refuses as prototype poisoning are plain data to `JSON.parse`: a
  // tool argument named `__proto__` reaches `toolCall` as an own key, refused as unknown like
  // any other (tool-server.ts reads a call's arguments without copying them).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    const text = utf8Text(body);
    // Bytes that are not UTF-8 are no JSON text either.
    if (text === undefined) return done(null, NOT_JSON);
    if (text.trim().length === 0) return done(null, undefined);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return done(null, NOT_JSON);
    }
    done(null, message);
  });

  app.post(MCP_PATH, {
    // Before the body is read: a page of another origin, or a caller without a token, sends none.
    preParsing: async (request, reply, payload) => {
      refuseForeignOrigin(request, opts.runtime.appUrl);
      if (!request.principal) {
        // RFC 6750: a token that was sent and refused is an invalid_token; no token, no error code.
        reply.header('WWW-Authenticate', request.headers.authorization === undefined ? 'Bearer realm="tack"' : 'Bearer realm="tack", error="invalid_token"');
      }
      principalOf(request);
      return payload;
    },
    handler: async (request, reply) => {
      const principal: Principal = { ...principalOf(request), face: 'mcp' };
      const body = request.body;
      if (body === NOT_JSON) return sendJsonRpc(reply, 400, unreadable(PARSE_ERROR, 'Parse error: the body is not valid JSON.'));
      if (Array.isArray(body) && body.length === 0) return sendJsonRpc(reply, 400, unreadable(INVALID_REQUEST, 'Invalid Request: a batch needs at least one message.'));
      const invalid = invalidMessage(body);
      if (invalid !== undefined) return sendJsonRpc(reply, 400, invalid);
      const refused = malformedInitialize(body);
      if (refused !== undefined) return sendJsonRpc(reply, 200, refused);
      // Each message of a batch is a call of its own; onRequest counted the first.
      if (Array.isArray(body) && body.length > 1) await opts.countMore(request, reply, body.length - 1);
      // tools/list shows this caller what it can call: a read-only token, the read tools.
      const server = createToolServer({ catalog, list: () => usableBy(catalog, principal) }, invoker(request, principal), VERSION);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(webRequest(request), { parsedBody: body });
        reply.code(response.status);
        response.headers.forEach((value, name) => {
          if (!OWN_HEADERS.has(name)) reply.header(name, value);
        });
        const text = await response.text();
        return reply.send(text.length > 0 ? text : undefined);
      } finally {
        await server.close();
      }
    },
  });

  // No server-initiated stream and no sessions: GET and DELETE are not offered, so they are
  // 405 with Allow: POST, like any known path asked with another method (route-methods.ts).
}

/**
 * A call the tool itself refused: the 422 names every problem at once, the tool's and those
 * the operation's own validation finds in the rest (a missing required argument is not hidden
 * by an unknown one).
 */
function refuse(op: Operation, call: ToolCall, args: Record<string, unknown>): never {
  try {
    parseOperationInput(op, call.toValidate);
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_failed') throw validationFailed(allErrors(call, err.fields ?? [], args));
    throw err;
  }
  throw validationFailed(call.errors);
}

function sendJsonRpc(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type('application/json').send(text);
}

/** The SDK transport reads headers (Accept, Content-Type, protocol version) from a web Request. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(request.url, 'http://tack.invalid'), { method: request.method, headers });
}
