import { readFileSync } from 'node:fs';
import type { ApiRequest } from '../client/api-client.js';
import { clientTarget } from './client-env.js';
import { CliError, EXIT, exitWithEnvelope } from '../client/exit.js';
import { envelopeOf, exitCodeOf } from '../client/failure.js';
import { terminalClient } from './terminal-client.js';

/** The options of `tack api` (api-command.ts), as commander hands them over. */
export interface ApiOptions {
  rawField: string[];
  field: string[];
  input?: string;
  paginate?: boolean;
}

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

/** Runs `tack api`: one request (or, with --paginate, every page), the body to stdout. */
export async function callApi(methodText: string, pathText: string, opts: ApiOptions): Promise<void> {
  try {
    const request = await requestOf(methodText, pathText, opts);
    const client = terminalClient(clientTarget());
    if (opts.paginate) {
      if (request.method !== 'GET') throw new CliError('--paginate follows the pages of a list: use it with GET', EXIT.usage);
      const data: unknown[] = [];
      const query = { ...request.query };
      for (;;) {
        const page = (await client.request({ ...request, query })).json as { data?: unknown[]; next_cursor?: string } | undefined;
        if (!Array.isArray(page?.data)) throw new CliError(`${pathText} is not a list: it has no data to page through`, EXIT.usage);
        data.push(...page.data);
        if (!page.next_cursor) break;
        query.cursor = page.next_cursor;
      }
      process.stdout.write(`${JSON.stringify({ data })}\n`);
      return;
    }
    const res = await client.request(request);
    if (res.text) process.stdout.write(res.text.endsWith('\n') ? res.text : `${res.text}\n`);
  } catch (err) {
    exitWithEnvelope(envelopeOf(err), exitCodeOf(err));
  }
}

async function requestOf(methodText: string, pathText: string, opts: ApiOptions): Promise<ApiRequest> {
  const method = methodText.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw new CliError(`the method is one of ${METHODS.join(', ')}, not ${methodText}`, EXIT.usage);
  if (!pathText.startsWith('/')) throw new CliError(`the path starts with / (such as /cards), not ${pathText}`, EXIT.usage);
  const url = new URL(pathText.replace(/^\/v1(?=\/|$|\?)/, '') || '/', 'http://tack.invalid');
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) (query[name] ??= []).push(value);
  const fields: Record<string, unknown> = {};
  for (const text of opts.rawField) setField(fields, text, (value) => value);
  for (const text of opts.field) setField(fields, text, typedValue);
  const inQuery = method === 'GET' || method === 'DELETE';
  let body: unknown;
  if (opts.input !== undefined) {
    if (!inQuery && Object.keys(fields).length > 0) throw new CliError('give the body either with --input or with fields (-f, -F), not both', EXIT.usage);
    body = parseJson(opts.input === '-' ? await readStdin() : readFile(opts.input), opts.input);
  } else if (!inQuery && Object.keys(fields).length > 0) body = fields;
  if (inQuery) {
    for (const [name, value] of Object.entries(fields)) query[name] = [...(query[name] ?? []), ...(Array.isArray(value) ? value : [value]).map(String)];
  }
  return { method, path: url.pathname, query, ...(body !== undefined ? { body } : {}) };
}

/** `key=value` into `fields`; `key[]=value` appends to a list. */
function setField(fields: Record<string, unknown>, text: string, read: (value: string) => unknown): void {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new CliError(`a field is key=value, not ${text}`, EXIT.usage);
  const key = text.slice(0, eq);
  const value = read(text.slice(eq + 1));
  if (key.endsWith('[]')) {
    const name = key.slice(0, -2);
    const list = Array.isArray(fields[name]) ? (fields[name] as unknown[]) : [];
    fields[name] = [...list, value];
  } else fields[key] = value;
}

/** -F's value: JSON for true, false, null and numbers; a file's text for @file; text otherwise. */
function typedValue(value: string): unknown {
  if (value === 'true' || value === 'false' || value === 'null') return JSON.parse(value);
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value.startsWith('@')) return readFile(value.slice(1));
  return value;
}

function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, EXIT.usage);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string, from: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`--input ${from} is not JSON`, EXIT.usage);
  }
}
