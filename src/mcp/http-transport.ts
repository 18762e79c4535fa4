import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { VERSION } from '../version.js';
import type { Principal } from '../domain/context.js';
import { mapError } from '../http/envelope.js';
import { principalOf } from '../http/routes.js';
import { execute, type Runtime } from '../operations/execute.js';
import { describeOperations } from '../operations/manifest.js';
import type { Operation } from '../operations/operation.js';
import { parseOperationInput } from '../operations/operation-input.js';
import { createToolServer, toolCatalog, type ToolInvoker } from './tool-server.js';
import { toolCall } from './tool-arguments.js';
import { errorResult, successResult } from './tools.js';

export const MCP_PATH = '/mcp';

/** True for the MCP endpoint (with or without a trailing slash or a query). */
export function isMcpUrl(url: string): boolean {
  const path = url.split('?')[0] ?? url;
  return path === MCP_PATH || path === `${MCP_PATH}/`;
}

export interface McpHttpOptions {
  operations: readonly Operation[];
  runtime: Runtime;
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
      const outcome = await execute(opts.runtime, op, principal, parseOperationInput(op, call.input), call.idempotencyKey);
      return successResult(entry, outcome.body === null ? undefined : JSON.parse(outcome.body), outcome.replayed);
    } catch (err) {
      return errorResult(mapError(err, request.id, request.log).envelope);
    }
  };

  app.post(MCP_PATH, {
    preValidation: async (request, reply) => {
      if (!request.principal) reply.header('WWW-Authenticate', 'Bearer realm="tack"');
      principalOf(request);
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const server = createToolServer(catalog, invoker(request, principal), VERSION);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
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

/** The SDK transport reads headers (Accept, Content-Type, protocol version) from a web Request. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(request.url, 'http://tack.invalid'), { method: request.method, headers });
}
