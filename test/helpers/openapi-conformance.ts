import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { openApiDocument } from '../../src/http/openapi.js';
import { operations } from '../../src/operations/index.js';

/**
 * Checks an HTTP answer against the OpenAPI document the server serves (built from the same
 * table): the status must be one the operation declares, the body must match that
 * response's schema (ajv, formats included), and the headers must be declared, present
 * when required, and of their declared type. The test client (helpers/server.ts) runs
 * every answer to a `/v1` operation through it, so the whole suite replays its traffic
 * against the document, and the two cannot drift.
 */

type Doc = OpenAPIV3_1.Document;
type Response = OpenAPIV3_1.ResponseObject;

// ajv-formats is CommonJS: its ESM default import is module.exports, whose `default` is the plugin.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

let state: { doc: Doc; ajv: Ajv2020; routes: Route[]; validators: Map<string, ValidateFunction> } | undefined;

interface Route {
  method: string;
  re: RegExp;
  path: string;
  operationId: string;
}

function load() {
  if (state) return state;
  const doc = openApiDocument(operations, 'http://127.0.0.1:3000');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'tack-openapi', $defs: rewriteRefs(doc.components?.schemas ?? {}) });
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {})) {
      const operationId = (op as OpenAPIV3_1.OperationObject).operationId;
      if (!operationId) continue;
      routes.push({ method: method.toUpperCase(), re: new RegExp(`^/v1${path.replace(/\{\w+\}/g, '[^/]+')}/?$`), path, operationId });
    }
  }
  state = { doc, ajv, routes, validators: new Map() };
  return state;
}

/** `#/components/schemas/X` inside a schema, as a reference into the schema registered above. */
function rewriteRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(rewriteRefs) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', 'tack-openapi#/$defs/') : rewriteRefs(v);
  }
  return out as T;
}

function resolve<T>(doc: Doc, value: T | OpenAPIV3_1.ReferenceObject): T {
  if (value && typeof value === 'object' && '$ref' in value) {
    const parts = value.$ref.replace(/^#\//, '').split('/');
    let node: unknown = doc;
    for (const p of parts) node = (node as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
    return node as T;
  }
  return value as T;
}

export interface Answer {
  method: string;
  /** The request path, with or without a query string. */
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

export interface Conformance {
  /** The operation the request addressed, when it addressed one. */
  operationId?: string;
  problems: string[];
}

/** Checks one answer; a request that addresses no operation (health, unknown routes, 405) is not checked. */
export function checkAnswer(answer: Answer): Conformance {
  const { doc, ajv, routes, validators } = load();
  const path = answer.url.split('?')[0]!;
  const route = routes.find((r) => r.method === answer.method.toUpperCase() && r.re.test(path));
  if (!route) return { problems: [] };
  const where = `${answer.method} ${path} (${route.operationId}) answered ${answer.status}`;
  const op = (doc.paths![route.path] as Record<string, OpenAPIV3_1.OperationObject>)[route.method.toLowerCase()]!;
  const declared = op.responses?.[String(answer.status)];
  if (!declared) return { operationId: route.operationId, problems: [`${where}: the document does not declare ${answer.status} (it declares ${Object.keys(op.responses ?? {}).join(', ')})`] };
  const response = resolve<Response>(doc, declared);
  const problems: string[] = [];
  problems.push(...checkHeaders(doc, response, answer.headers).map((p) => `${where}: ${p}`));
  const media = response.content?.['application/json'];
  if (!media) {
    if (answer.text !== '') problems.push(`${where}: the document declares no body, but one came: ${answer.text.slice(0, 200)}`);
    return { operationId: route.operationId, problems };
  }
  if (!/^application\/json/.test(answer.headers.get('content-type') ?? '')) problems.push(`${where}: content-type ${answer.headers.get('content-type')} is not application/json`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    problems.push(`${where}: the body is not JSON: ${answer.text.slice(0, 200)}`);
    return { operationId: route.operationId, problems };
  }
  const key = `${route.operationId} ${answer.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(rewriteRefs(media.schema as object));
    validators.set(key, validate);
  }
  if (!validate(body)) {
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
    problems.push(`${where}: the body does not match the document: ${errors}; body: ${answer.text.slice(0, 300)}`);
  }
  return { operationId: route.operationId, problems };
}

/** tack's own headers: on an answer, each must be one the document declares for it. */
const OWN_HEADERS = ['x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'idempotent-replayed'];

function checkHeaders(doc: Doc, response: Response, headers: Headers): string[] {
  const problems: string[] = [];
  const declared = new Map(Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), resolve<OpenAPIV3_1.HeaderObject>(doc, h)]));
  for (const name of OWN_HEADERS) {
    const value = headers.get(name);
    const header = declared.get(name);
    if (value !== null && !header) problems.push(`header ${name} is sent but not declared for this response`);
  }
  for (const [name, header] of declared) {
    const value = headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`required header ${name} is missing`);
      continue;
    }
    const schema = header.schema as OpenAPIV3_1.SchemaObject | undefined;
    if (!schema) continue;
    const typed = schema.type === 'integer' || schema.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value) : value;
    const { ajv } = load();
    if (!ajv.validate(schema, typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(ajv.errors)}`);
  }
  return problems;
}

/** Throws with every problem, for a test to fail where the drift happened. */
export function assertConforms(answer: Answer): Conformance {
  const result = checkAnswer(answer);
  if (result.problems.length > 0) throw new Error(`The answer does not match /v1/openapi.json:\n- ${result.problems.join('\n- ')}`);
  return result;
}
