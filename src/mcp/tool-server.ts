import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { OperationEntry } from '../operations/manifest.js';
import { toolFor } from './tools.js';

/** Runs one operation for a tool call; answers domain errors as `isError` results, never throws them. */
export type ToolInvoker = (entry: OperationEntry, args: Record<string, unknown>) => Promise<CallToolResult>;

const INSTRUCTIONS =
  'tack holds snippets, cards, todos and milestones. Each tool is one operation of the tack /v1 API, ' +
  'with the same input, output and errors. Lists return one page; pass next_cursor back as cursor.';

export interface ToolCatalog {
  entries: Map<string, OperationEntry>;
  tools: Tool[];
}

export function toolCatalog(entries: readonly OperationEntry[]): ToolCatalog {
  return { entries: new Map(entries.map((e) => [e.name, e])), tools: entries.map(toolFor) };
}

/**
 * An MCP server whose tools are the operation table. We use the SDK's `Server` with our own
 * tools/list and tools/call handlers rather than `McpServer.registerTool`: registerTool
 * validates arguments itself and answers a bad one with its own message, while tack answers
 * it like `/v1` does (422 `validation_failed` with the same field errors); and the stdio side
 * works from the JSON manifest without loading the table's zod schemas.
 */
export function createToolServer(catalog: ToolCatalog, invoke: ToolInvoker, version: string): Server {
  const server = new Server({ name: 'tack', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: catalog.tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const entry = catalog.entries.get(request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return invoke(entry, request.params.arguments ?? {});
  });
  return server;
}
