import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { jsonSchema, type JsonSchema } from '../operations/json-schema.js';
import { resources } from '../operations/resources.js';

export type { JsonSchema };

const DEFS = '#/$defs/';
const COMPONENTS = '#/components/schemas/';

/**
 * The schemas of one OpenAPI document: each operation's as OpenAPI 3.1 (JSON Schema 2020-12,
 * jsonSchema's rules), with every resource of `resources.ts` written once, here, and
 * referenced from wherever it appears.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /** A request (inline, as generators name a body after its operation) or a response (resources as `$ref`s). */
  schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    if (io === 'input') return jsonSchema(schema, 'input');
    const { $defs, ...json } = jsonSchema(schema, 'output', { names: resources });
    for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) this.#add(name, toComponents(def));
    const out = toComponents(json);
    // A `.describe()`d resource (`The milestone with its counts`): the response says it already.
    if (typeof out.$ref === 'string') delete out.description;
    return out;
  }

  #add(name: string, schema: JsonSchema): void {
    const known = this.schemas[name];
    if (known !== undefined && !isDeepStrictEqual(known, schema)) throw new Error(`Two different schemas are both named ${name} in the OpenAPI document`);
    this.schemas[name] = schema;
  }
}

/** zod's `#/$defs/Card` as the document's `#/components/schemas/Card`. */
function toComponents<T>(value: T): T {
  if (Array.isArray(value)) return value.map(toComponents) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof v === 'string' && v.startsWith(DEFS) ? COMPONENTS + v.slice(DEFS.length) : toComponents(v);
  }
  return out as T;
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Splits an object schema into its fields, for path and query parameters. */
export function fieldsOf(schema: z.ZodObject): { name: string; schema: JsonSchema; required: boolean; description?: string }[] {
  const json = jsonSchema(schema, 'input');
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  const properties = isRecord(json.properties) ? json.properties : {};
  return Object.entries(properties).map(([name, value]) => {
    const { description, ...rest } = value as JsonSchema;
    return { name, schema: rest, required: required.has(name), ...(typeof description === 'string' ? { description } : {}) };
  });
}
