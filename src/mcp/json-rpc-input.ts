/** What both MCP transports answer, themselves, to a message the SDK cannot read. */

/** JSON-RPC's own error codes for a message that cannot be read. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/** A JSON-RPC error answer that belongs to no request (`id: null`): the message could not be read. */
export function unreadable(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
}

/** JSON-RPC's "invalid params". */
export const INVALID_PARAMS = -32602;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The answer to an `initialize` whose params are not an initialize's, or undefined. The SDK
 * answers one with -32603 "internal error" and its validator's dump; this is -32602 with a
 * sentence, to the request's own id.
 */
export function malformedInitialize(message: unknown): string | undefined {
  if (!isPlainObject(message) || message.method !== 'initialize' || !('id' in message)) return undefined;
  const params = message.params;
  if (isPlainObject(params) && typeof params.protocolVersion === 'string' && isPlainObject(params.capabilities) && isPlainObject(params.clientInfo)) return undefined;
  const error = { code: INVALID_PARAMS, message: 'initialize takes params {"protocolVersion": "…", "capabilities": {…}, "clientInfo": {"name": "…", "version": "…"}}.' };
  return JSON.stringify({ jsonrpc: '2.0', id: message.id, error });
}

/** What makes a message no JSON-RPC message MCP takes, or undefined when it is one. */
function messageProblem(m: unknown): string | undefined {
  if (!isPlainObject(m)) return 'a message is a JSON object.';
  if (m.jsonrpc !== '2.0') return 'jsonrpc must be "2.0".';
  const hasId = 'id' in m;
  // MCP, unlike plain JSON-RPC, never takes a null id.
  if (hasId && !(typeof m.id === 'string' || Number.isInteger(m.id))) return 'id must be a string or an integer, never null.';
  if (typeof m.method === 'string') return 'params' in m && !isPlainObject(m.params) ? 'params must be an object.' : undefined;
  if (hasId && ('result' in m || 'error' in m)) return undefined;
  return 'a message has a method (a request or a notification), or a result or an error (a response).';
}

/**
 * The answer to a message, or to a batch holding one, that is not a JSON-RPC message MCP
 * takes (-32600, invalid request); undefined when all are. The SDK answers these as parse
 * errors (-32700), which JSON-RPC keeps for text that is not JSON.
 */
export function invalidMessage(message: unknown): string | undefined {
  for (const m of Array.isArray(message) ? message : [message]) {
    const problem = messageProblem(m);
    if (problem) return unreadable(INVALID_REQUEST, `Invalid Request: ${problem}`);
  }
  return undefined;
}
