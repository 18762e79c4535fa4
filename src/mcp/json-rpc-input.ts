/** What both MCP transports answer, themselves, to a message the SDK cannot read. */

/** JSON-RPC's own error codes for a message that cannot be read. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/** A JSON-RPC error answer that belongs to no request (`id: null`): the message could not be read. */
export function unreadable(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
}
