import { validateInput } from './input-validation.js';
import type { Operation } from './operation.js';

/**
 * Validates the arguments of an MCP tool call on the server (Streamable HTTP) as `/v1`
 * validates the same request, because the stdio MCP server sends that very call to `/v1` and
 * both transports must answer alike: each argument goes where an HTTP client would send it
 * (path parameters under their URL names and query values as text, the rest as the JSON
 * body), then `validateInput` checks every part with the operation's own schemas, so a
 * failure is the same 422 `validation_failed` with the same field errors (a path parameter's
 * named as the caller named it). An argument the operation does not define goes where `/v1`
 * would refuse it: the body when the operation takes one or is a write, else the query.
 * In-process callers with typed input (Slack, jobs) use `callOperation` instead.
 */
export function parseOperationInput(op: Operation, args: Record<string, unknown>): Record<string, unknown> {
  const urlName = new Map(Object.entries(op.pathInput).map(([url, name]) => [name, url]));
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const param = urlName.get(key);
    if (param !== undefined) path[param] = value === null ? value : String(value);
    else if (op.query && key in op.query.shape) setQuery(query, key, value);
    else if (op.body || op.method !== 'GET') body[key] = value;
    else setQuery(query, key, value);
  }
  return validateInput(op, { path, query, body }, 'input');
}

/** A query string carries text only, and one value where one was given. */
function setQuery(query: Record<string, unknown>, key: string, value: unknown): void {
  if (value === null) return;
  if (Array.isArray(value)) query[key] = value.length === 1 ? String(value[0]) : value.map(String);
  else query[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
}
