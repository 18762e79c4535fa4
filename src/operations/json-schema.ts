import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

export interface JsonSchemaOptions {
  /**
   * Schemas to keep apart under a name: each one registered here becomes a `$defs` entry
   * named by its `id`, referenced with `$ref` wherever it appears (the OpenAPI document's
   * `components.schemas`). Without it every schema is written inline (MCP tools).
   */
  names?: z.core.$ZodRegistry<{ id: string }>;
}

/**
 * A zod schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1 and of MCP's current
 * revision), without `$schema` (both say 2020-12 when it is absent, and a validator set up
 * for another draft refuses a schema that names this one). The same rules for every face:
 *
 * - outputs follow tack's naming rule for dates: a `…_on` field is a calendar date
 *   (`format: date`), a `…_at` field a moment (`format: date-time`), so every operation,
 *   new ones included, documents its dates alike; zod's regex beside a date format is dropped
 *   (the format is the contract);
 * - zod's bounds of a safe integer (±2^53 − 1) on every `int()` are dropped: no field of tack
 *   comes near them, and they only make tool schemas longer and generated types noisier;
 * - every branch of a union carries its own `type` (`due_on` is a date or `today`/`tomorrow`,
 *   both strings, and null where it can be cleared), so a generator that reads one branch at
 *   a time types each one; a union nested in a union is one union.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output', options: JsonSchemaOptions = {}): JsonSchema {
  const metadata = options.names ? new NamedMetadata(options.names) : undefined;
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', ...(metadata ? { metadata } : {}) }) as JsonSchema;
  delete json.$schema;
  const byName = io === 'output';
  const out = tidy(json, undefined, byName);
  if (isRecord(out.$defs)) out.$defs = Object.fromEntries(Object.entries(out.$defs).map(([name, def]) => [name, isRecord(def) ? tidy(def, undefined, byName) : def]));
  return out;
}

/**
 * The global registry's metadata (descriptions), with the `id` of `names` where a schema has
 * one: zod extracts a schema with an `id` into `$defs`. The ids live in a registry of their
 * own so that no other conversion (MCP tools, input checks) starts writing references.
 */
class NamedMetadata extends z.core.$ZodRegistry<z.core.GlobalMeta> {
  constructor(private readonly names: z.core.$ZodRegistry<{ id: string }>) {
    super();
  }

  override get<S extends z.core.$ZodType>(schema: S): z.core.GlobalMeta | undefined {
    const meta = z.globalRegistry.get(schema);
    // The names registry's own `get` inherits no id from a parent: a `.describe()`d copy of
    // a named schema stays a copy, which zod writes as a `$ref` to the named one.
    const id = this.names.get(schema)?.id;
    return id === undefined ? meta : { ...meta, id };
  }
}

const DATE_FIELD = /_on$/;
const TIMESTAMP_FIELD = /_at$/;
const FORMATS_WITHOUT_PATTERN = new Set(['date', 'date-time']);
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', 'deprecated']);

function tidy(schema: JsonSchema, name: string | undefined, byName: boolean): JsonSchema {
  const out: JsonSchema = { ...schema };
  const isString = out.type === 'string' || (Array.isArray(out.type) && out.type.includes('string'));
  if (byName && isString && out.format === undefined && name !== undefined) {
    if (DATE_FIELD.test(name)) out.format = 'date';
    else if (TIMESTAMP_FIELD.test(name)) out.format = 'date-time';
  }
  if (typeof out.format === 'string' && FORMATS_WITHOUT_PATTERN.has(out.format)) delete out.pattern;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (isRecord(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([key, value]) => [key, isRecord(value) ? tidy(value, key, byName) : value]));
  }
  if (isRecord(out.items)) out.items = tidy(out.items, undefined, byName);
  if (isRecord(out.additionalProperties)) out.additionalProperties = tidy(out.additionalProperties, undefined, byName);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((s: unknown) => (isRecord(s) ? tidy(s, name, byName) : s));
  }
  return typedBranches(out);
}

/**
 * `{type: string, anyOf: [{format: date}, {enum: [today, tomorrow]}]}` as
 * `{anyOf: [{type: string, format: date}, {type: string, enum: […]}]}`; and a branch that is
 * only a union (`(date | today) | null`) spliced into its parent.
 */
function typedBranches(schema: JsonSchema): JsonSchema {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    let branches = list as unknown[];
    if (key === 'anyOf') {
      branches = branches.flatMap((branch) => {
        if (!isRecord(branch) || !Array.isArray(branch.anyOf) || Object.keys(branch).some((k) => k !== 'anyOf' && !ANNOTATIONS.has(k))) return [branch];
        for (const k of Object.keys(branch)) if (k !== 'anyOf' && schema[k] === undefined) schema[k] = branch[k];
        return branch.anyOf as unknown[];
      });
    }
    if (typeof schema.type === 'string' && branches.every((b) => isRecord(b) && b.type === undefined && b.$ref === undefined)) {
      branches = branches.map((b) => ({ type: schema.type, ...(b as JsonSchema) }));
      delete schema.type;
    }
    schema[key] = branches;
  }
  return schema;
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
