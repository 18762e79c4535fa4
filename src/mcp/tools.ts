import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OperationEntry } from '../operations/manifest.js';
import { portableTypes } from './portable-schema.js';
import { toolInputSchema } from './tool-arguments.js';

/** What an error answer carries: the /v1 envelope (request_id when a server request made it). */
export interface ToolErrorEnvelope {
  code: string;
  user_message: string;
  http_status?: number;
  request_id?: string;
  errors?: { field: string; code: string; message: string }[];
}

/**
 * One MCP tool per operation, named by its operationId, with the operation's own input and
 * output schemas (plus `idempotency_key` on writes). Both transports (stdio and Streamable
 * HTTP) list exactly these.
 */
export function toolFor(entry: OperationEntry): Tool {
  const tool: Tool = {
    name: entry.name,
    title: entry.summary,
    description: `${entry.summary}. Same as ${entry.method} /v1${entry.path}; ${entry.scope === null ? 'works with any token scope: the operation checks who may' : `needs a token with the ${entry.scope} scope`}.${
      entry.list ? ' Returns one page: pass next_cursor back as cursor for the next.' : ''
    }${entry.readOnly ? '' : ' Pass idempotency_key to retry safely.'}`,
    inputSchema: portableTypes(toolInputSchema(entry)) as Tool['inputSchema'],
    annotations: {
      title: entry.summary,
      readOnlyHint: entry.readOnly,
      // MCP assumes a write is destructive unless told otherwise: only additive ones say false.
      destructiveHint: entry.destructive,
      idempotentHint: entry.idempotent,
      openWorldHint: entry.openWorld,
    },
  };
  if (entry.outputSchema) tool.outputSchema = portableTypes(entry.outputSchema) as Tool['outputSchema'];
  return tool;
}

/**
 * A successful answer: the response body as `structuredContent` and as JSON text. A replay
 * (a retried write whose idempotency_key was seen) says so in `_meta`, as /v1 does with the
 * `Idempotent-Replayed` header.
 */
export function successResult(entry: OperationEntry, body: unknown, replayed = false): CallToolResult {
  const result: CallToolResult =
    body === undefined || body === null
      ? { content: [{ type: 'text', text: `Done: ${entry.name} succeeded (no content).` }] }
      : { content: [{ type: 'text', text: JSON.stringify(body) }] };
  if (entry.outputSchema && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    result.structuredContent = body as Record<string, unknown>;
  }
  if (replayed) result._meta = { 'tack/idempotent-replayed': true };
  return result;
}

/**
 * An error answer, the same from both transports: `isError` with the envelope's code and
 * user_message as text. No `structuredContent`: it would have to match the output schema.
 */
export function errorResult(envelope: ToolErrorEnvelope): CallToolResult {
  const lines = [`${envelope.code}: ${envelope.user_message}`];
  // Each message is a sentence naming its field; the one already said as user_message is not repeated.
  for (const e of envelope.errors ?? []) if (e.message !== envelope.user_message) lines.push(`- ${e.message} (${e.code})`);
  if (envelope.request_id) lines.push(`request_id: ${envelope.request_id}`);
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    _meta: { 'tack/error': envelope },
  };
}
