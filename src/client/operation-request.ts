import type { OperationEntry } from '../operations/manifest.js';
import { ApiError, type ApiRequest } from './api-client.js';

/**
 * The HTTP request for one operation and its input (params, query and body merged, as an MCP
 * tool or a command line gives them): path parameters fill the path, query fields the query
 * string, the rest the JSON body. Keys the operation does not know go where an HTTP client
 * would put them, so `/v1` judges them exactly as it judges any other request.
 */
export function requestFor(entry: OperationEntry, input: Record<string, unknown>): ApiRequest {
  const where = new Map(entry.fields.map((f) => [f.name, f.in]));
  const hasBody = entry.fields.some((f) => f.in === 'body');
  const missing = entry.fields.filter((f) => f.in === 'path' && (input[f.name] === undefined || input[f.name] === null || input[f.name] === ''));
  if (missing.length > 0) {
    throw new ApiError({
      code: 'validation_failed',
      http_status: 422,
      user_message: missing.length === 1 ? `${missing[0]!.name} is required.` : `${missing.length} fields are not valid: ${missing.map((f) => f.name).join(', ')}.`,
      errors: missing.map((f) => ({ field: f.name, code: 'required', message: `${f.name} is required.` })),
    });
  }
  const inputName = new Map(entry.fields.filter((f) => f.in === 'path').map((f) => [f.param ?? f.name, f.name]));
  const path = entry.path.replace(/\{(\w+)\}/g, (_m, param: string) => encodeURIComponent(String(input[inputName.get(param) ?? param])));
  const query: Record<string, string | string[]> = {};
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    // An unknown key goes where /v1 refuses it (422 unknown_field), never dropped.
    const location = where.get(name) ?? (hasBody || entry.method !== 'GET' ? 'body' : 'query');
    if (location === 'query') {
      if (value === null) continue;
      query[name] = Array.isArray(value) ? value.map(String) : String(value);
    } else if (location === 'body') {
      body[name] = value;
    }
  }
  return { method: entry.method, path, query, ...(hasBody || Object.keys(body).length > 0 ? { body } : {}) };
}
