import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as OpenAPI 3.1 (JSON Schema 2020-12). Outputs follow tack's naming rule
 * for dates: a `…_on` field is a calendar date (`format: date`), a `…_at` field a moment
 * (`format: date-time`), so every operation, new ones included, documents its dates alike;
 * the conformance test checks the real responses against these formats.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return annotate(json, undefined, io === 'output');
}

const DATE_FIELD = /_on$/;
const TIMESTAMP_FIELD = /_at$/;
// zod writes its date regexes next to the format; the format is the contract, the regex is noise.
const FORMATS_WITHOUT_PATTERN = new Set(['date', 'date-time']);

function annotate(schema: JsonSchema, name: string | undefined, byName: boolean): JsonSchema {
  const out: JsonSchema = { ...schema };
  const isString = out.type === 'string' || (Array.isArray(out.type) && out.type.includes('string'));
  if (byName && isString && out.format === undefined && name !== undefined) {
    if (DATE_FIELD.test(name)) out.format = 'date';
    else if (TIMESTAMP_FIELD.test(name)) out.format = 'date-time';
  }
  if (typeof out.format === 'string' && FORMATS_WITHOUT_PATTERN.has(out.format)) delete out.pattern;
  if (isRecord(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([key, value]) => [key, isRecord(value) ? annotate(value, key, byName) : value]));
  }
  if (isRecord(out.items)) out.items = annotate(out.items, undefined, byName);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((s: unknown) => (isRecord(s) ? annotate(s, name, byName) : s));
  }
  return out;
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
