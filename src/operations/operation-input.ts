import type { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { fieldErrors, type ValidationIssue } from '../http/envelope.js';
import type { Operation } from './operation.js';

type Part = 'params' | 'body' | 'querystring';

/**
 * Validates the arguments of a face that calls `execute` in-process (an MCP tool call, a
 * Slack command) as `/v1` validates the same request: each argument goes where an HTTP
 * client would send it (path parameters and query values as strings, the rest as the JSON
 * body), each part is checked by the operation's own schema in Fastify's order (so a part's
 * own refinements hold, which the merged `op.input` would drop), and a failure is the same
 * 422 `validation_failed` with the same field errors.
 */
export function parseOperationInput(op: Operation, args: Record<string, unknown>): Record<string, unknown> {
  const parts: Record<Part, Record<string, unknown>> = { params: {}, body: {}, querystring: {} };
  const urlName = new Map(Object.entries(op.pathInput).map(([url, name]) => [name, url]));
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const param = urlName.get(key);
    if (param !== undefined) parts.params[param] = value === null ? value : String(value);
    else if (op.query && key in op.query.shape) setQuery(parts.querystring, key, value);
    else if (op.body) parts.body[key] = value;
    else if (op.method === 'GET') setQuery(parts.querystring, key, value);
  }
  const input: Record<string, unknown> = {};
  const schemas: [Part, z.ZodObject | undefined][] = [
    ['params', op.params],
    ['body', op.body],
    ['querystring', op.query],
  ];
  for (const [part, schema] of schemas) {
    if (!schema) continue;
    const result = schema.safeParse(parts[part]);
    if (!result.success) {
      const issues = result.error.issues.map((issue) => (part === 'params' ? { ...issue, path: inputPath(op, issue.path) } : issue));
      throw new AppError('validation_failed', 422, 'Some fields are not valid.', fieldErrors(issues.map(asIssue), part));
    }
    for (const [key, value] of Object.entries(result.data)) input[part === 'params' ? (op.pathInput[key] ?? key) : key] = value;
  }
  return input;
}

/** A path parameter's issue under the name the caller gave it. */
function inputPath(op: Operation, path: PropertyKey[]): PropertyKey[] {
  const [first, ...rest] = path;
  return typeof first === 'string' ? [op.pathInput[first] ?? first, ...rest] : path;
}

/** A query string carries text only, and one value where one was given. */
function setQuery(query: Record<string, unknown>, key: string, value: unknown): void {
  if (value === null) return;
  if (Array.isArray(value)) query[key] = value.length === 1 ? String(value[0]) : value.map(String);
  else query[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A zod issue in the form the HTTP validator reports it (see @fastify/type-provider-zod). */
function asIssue(issue: z.core.$ZodIssue): ValidationIssue {
  const { path, code, message, ...rest } = issue;
  return { keyword: code, instancePath: `/${path.join('/')}`, message, params: rest as Record<string, unknown> };
}
