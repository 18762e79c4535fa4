import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { mayCall, type Caller } from '../domain/callable.js';
import type { OperationEntry } from '../operations/manifest.js';
import { isPlainObject } from './json-rpc-input.js';
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

/** The tools of `catalog` that `caller` can call (its scopes, its role): what tools/list shows it. */
export function usableBy(catalog: ToolCatalog, caller: Caller): Tool[] {
  return catalog.tools.filter((tool) => mayCall(caller, catalog.entries.get(tool.name)!));
}

export interface ToolSource {
  /** What tools/list answers: the tools the caller can use, of those this server offers. */
  list(): Tool[] | Promise<Tool[]>;
  /** Every tool this server offers by name (one listed or not: the operation refuses what the caller may not do). */
  catalog: ToolCatalog;
  /** Why a tool of the table is not offered here, when it is not (a read-only server, a toolset left out). */
  notOffered?(name: string): string | undefined;
}

/**
 * An MCP server whose tools are the operation table. We use the SDK's `Server` with our own
 * tools/list and tools/call handlers rather than `McpServer.registerTool`: registerTool
 * validates arguments itself and answers a bad one with its own message, while tack answers
 * it like `/v1` does (422 `validation_failed` with the same field errors); and the stdio side
 * works from the JSON manifest without loading the table's zod schemas.
 */
export function createToolServer(source: ToolSource, invoke: ToolInvoker, version: string): Server {
  const server = new Server({ name: 'tack', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await source.list() }));
  // Registered with a schema that leaves `params` as sent, past Server's own wrapper for
  // tools/call. Parsed with the SDK's CallToolRequestSchema, a malformed call (`arguments:
  // []`, no `name`) was -32603 "internal error" with the validator's dump, and the arguments
  // were copied key by key, which dropped one named `__proto__` without a word. tack reads
  // the call itself: -32602 with a sentence, and every argument reaches `toolCall`.
  Protocol.prototype.setRequestHandler.call(server, TOOLS_CALL, async (request: z.infer<typeof TOOLS_CALL>) => {
    const call = readToolCall(request.params);
    const entry = source.catalog.entries.get(call.name);
    if (!entry) {
      throw invalidParams(source.notOffered?.(call.name) ?? `There is no tool named ${JSON.stringify(call.name)}; tools/list names the ${(await source.list()).length} there are.`);
    }
    return invoke(entry, call.args);
  });
  return server;
}

const TOOLS_CALL = z.looseObject({ method: z.literal('tools/call'), params: z.unknown() });

/**
 * A JSON-RPC "invalid params" error (-32602) whose message is the sentence alone: the SDK's
 * McpError puts "MCP error -32602: " into its message, and clients add it again.
 */
function invalidParams(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

/** `params` of a tools/call: a tool's name and its arguments (none when absent). */
function readToolCall(params: unknown): { name: string; args: Record<string, unknown> } {
  if (!isPlainObject(params)) throw invalidParams('tools/call takes params {"name": "<tool>", "arguments": {…}}.');
  if (typeof params.name !== 'string') throw invalidParams('tools/call needs params.name: the name of the tool to call, as tools/list gives it.');
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) throw invalidParams(`params.arguments must be an object of ${params.name}'s arguments by name.`);
  return { name: params.name, args: args ?? {} };
}
