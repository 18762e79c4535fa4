import type { z } from 'zod';
import type { Scope } from '../domain/context.js';
import { references } from '../domain/fields.js';
import { ALIASED_VOCABULARIES } from '../vocabulary.js';
import { jsonSchema, type JsonSchema } from './json-schema.js';
import { reaches, type HttpMethod, type Operation } from './operation.js';

/**
 * The operation table described as plain JSON: what a client (the `tack` CLI, the stdio MCP
 * server) needs to call an operation over `/v1` without loading the table's zod schemas or
 * the domain behind them. `npm run build` writes it to `dist/cli-manifest.json`; the server
 * derives the same description from the live table, so both MCP transports list the same tools.
 */
export interface OperationManifest {
  operations: OperationEntry[];
}

export type { JsonSchema };

/** Where a field travels in the HTTP request. */
export type FieldLocation = 'path' | 'query' | 'body';

/** The shape of a field, reduced to what a command line can express. */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'json';

export interface FieldEntry {
  /** The API name (snake_case), as in the JSON body or query string, and in the merged input. */
  name: string;
  in: FieldLocation;
  /** A path parameter's name in the path template, where it differs from `name`. */
  param?: string;
  kind: FieldKind;
  /** For arrays: the kind of one item. */
  items?: Exclude<FieldKind, 'array'>;
  /** Allowed values (of the field, or of one item for arrays). */
  enum?: string[];
  /**
   * Words a person may type for those values (`wip` for `in_progress`), keyed as `aliasKey`
   * writes them: faces that read what people type (the CLI) translate them before sending.
   */
  aliases?: Record<string, string>;
  required: boolean;
  /** `null` is accepted (clears the value). */
  nullable: boolean;
  /** JSON Schema `format` (date-time, email, …) of the field or of one item. */
  format?: string;
  /**
   * The value, or each item, names a thing of the organization (an id, a slug, a ref): text
   * with no commas or spaces in it, unlike a title (a command line splits a list of these on
   * commas; a list of titles, never).
   */
  references?: true;
  default?: unknown;
  description?: string;
}

export interface OperationEntry {
  name: string;
  summary: string;
  group: string;
  method: HttpMethod;
  /** Path under /v1 with `{param}` placeholders. */
  path: string;
  /** Null: any token or session may call it, whatever its scopes; the operation decides who may. */
  scope: Scope | null;
  status: number;
  readOnly: boolean;
  idempotent: boolean;
  destructive: boolean;
  openWorld: boolean;
  /** The output is a page: `{data: [...], next_cursor?}`. */
  list: boolean;
  /** A response field holding a secret that is shown in this response only (a new token). */
  shownOnce?: string;
  fields: FieldEntry[];
  /** JSON Schema (2020-12, jsonSchema's rules) of params, query and body merged: the MCP tool input. */
  inputSchema: JsonSchema;
  /** JSON Schema of the response body when it is an object (the MCP tool output). */
  outputSchema: JsonSchema | null;
}

export function describeOperations(ops: readonly Operation[]): OperationManifest {
  return { operations: ops.map(describeOperation) };
}

export function describeOperation(op: Operation): OperationEntry {
  const inputSchema = jsonSchema(op.input, 'input');
  const outputSchema = op.output ? jsonSchema(op.output, 'output') : null;
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((inputSchema.required ?? []) as string[]);
  const fields: FieldEntry[] = [];
  const place = (shape: z.ZodObject | undefined, location: FieldLocation) => {
    const names = Object.keys(shape?.shape ?? {});
    // Path parameters in the order the path names them: they become positional arguments.
    if (location === 'path') names.sort((a, b) => op.path.indexOf(`{${a}}`) - op.path.indexOf(`{${b}}`));
    for (const key of names) {
      const name = location === 'path' ? (op.pathInput[key] ?? key) : key;
      const schema = properties[name] ?? {};
      const field = describeField(name, location, schema, location === 'path' || required.has(name));
      if (name !== key) field.param = key;
      if (reaches(op.input.shape[name]!, (s) => references.has(s), true)) field.references = true;
      fields.push(field);
    }
  };
  place(op.params, 'path');
  place(op.query, 'query');
  place(op.body, 'body');
  const isObject = outputSchema !== null && outputSchema.type === 'object';
  const outProps = (isObject ? outputSchema.properties : undefined) as Record<string, JsonSchema> | undefined;
  return {
    name: op.name,
    summary: op.summary,
    group: op.group,
    method: op.method,
    path: op.path,
    scope: op.scope,
    status: op.status,
    readOnly: op.readOnly,
    idempotent: op.idempotent,
    destructive: op.destructive,
    openWorld: op.openWorld,
    list: outProps?.data?.type === 'array' && 'next_cursor' in outProps,
    ...(op.shownOnce ? { shownOnce: op.shownOnce } : {}),
    fields,
    inputSchema,
    // Responses may gain fields over time (api-v1 part 9), so a client built from an older
    // table must not reject them: output schemas stay open.
    outputSchema: isObject ? openObjects(outputSchema) : null,
  };
}

function describeField(name: string, location: FieldLocation, schema: JsonSchema, required: boolean): FieldEntry {
  const { core, nullable } = withoutNull(schema);
  const kind = kindOf(core);
  const entry: FieldEntry = { name, in: location, kind, required, nullable };
  if (kind === 'array') {
    const items = withoutNull((core.items ?? {}) as JsonSchema).core;
    const itemKind = kindOf(items);
    entry.items = itemKind === 'array' ? 'json' : itemKind;
    const values = enumOf(items);
    if (values) entry.enum = values;
  } else {
    const values = enumOf(core);
    if (values) entry.enum = values;
  }
  const aliases = entry.enum && ALIASED_VOCABULARIES.find((v) => sameValues(v.values, entry.enum!))?.aliases;
  if (aliases) entry.aliases = { ...aliases };
  const format = (kind === 'array' ? (core.items as JsonSchema | undefined)?.format : core.format) as string | undefined;
  if (format) entry.format = format;
  if ('default' in schema) entry.default = schema.default;
  else if ('default' in core) entry.default = core.default;
  const description = (schema.description ?? core.description) as string | undefined;
  if (description) entry.description = description;
  return entry;
}

/** Splits `T | null` (as `anyOf` or a type list) into T and whether null is allowed. */
function withoutNull(schema: JsonSchema): { core: JsonSchema; nullable: boolean } {
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (Array.isArray(anyOf)) {
    const rest = anyOf.filter((s) => s.type !== 'null');
    if (rest.length < anyOf.length) return { core: rest.length === 1 ? rest[0]! : { anyOf: rest }, nullable: true };
    return { core: schema, nullable: false };
  }
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const types = (schema.type as string[]).filter((t) => t !== 'null');
    return { core: { ...schema, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  return { core: schema, nullable: false };
}

/**
 * The kind of a field as a command line can take it. A union of scalars reads as its widest
 * member: `me` or a member id is a string; a boolean that also accepts the text `true`/`false`
 * (a query flag) is a boolean.
 */
function kindOf(schema: JsonSchema): FieldKind {
  const members = unionMembers(schema);
  if (members) {
    const kinds = new Set(members.map(kindOf));
    if (kinds.size === 1) return [...kinds][0]!;
    if (kinds.size === 2 && kinds.has('boolean') && kinds.has('string')) return 'boolean';
    if (kinds.size === 2 && kinds.has('integer') && kinds.has('number')) return 'number';
    return 'json';
  }
  switch (schema.type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
    case 'array':
      return schema.type;
    default:
      return 'json';
  }
}

/** The alternatives of `anyOf`/`oneOf`, or of a list of types; undefined for a single schema. */
function unionMembers(schema: JsonSchema): JsonSchema[] | undefined {
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  // `{type: string, anyOf: [{format: date}, {enum: [today, tomorrow]}]}`: each member is a string.
  if (Array.isArray(alternatives)) return alternatives.map((a) => (a.type === undefined && typeof schema.type === 'string' ? { type: schema.type, ...a } : a));
  if (Array.isArray(schema.type)) return (schema.type as string[]).map((type) => ({ type }));
  return undefined;
}

function enumOf(schema: JsonSchema): string[] | undefined {
  const members = unionMembers(schema);
  if (members) {
    // A union of literals (`a` | `b`) is an enum; one free member makes it open.
    const parts = members.map(enumOf);
    return parts.every((p) => p !== undefined) ? [...new Set(parts.flat() as string[])] : undefined;
  }
  if (typeof schema.const === 'string') return [schema.const];
  const values = schema.enum;
  return Array.isArray(values) && values.every((v) => typeof v === 'string') ? (values as string[]) : undefined;
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v) => b.includes(v));
}

function openObjects(schema: unknown): JsonSchema {
  if (Array.isArray(schema)) return schema.map(openObjects) as unknown as JsonSchema;
  if (schema === null || typeof schema !== 'object') return schema as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) continue;
    out[key] = typeof value === 'object' ? openObjects(value) : value;
  }
  return out;
}
