import type { JsonSchema } from '../operations/manifest.js';

/** Keywords that constrain one JSON type only: they go to that type's branch. */
const KEYWORDS_OF: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
  object: ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties'],
};
const TYPED_KEYWORDS = new Set(Object.values(KEYWORDS_OF).flat());

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

/**
 * A tool schema in the spelling the most clients read: every `type: [a, b]` (zod's nullable
 * fields: `["string", "null"]`) becomes `anyOf: [{type: a}, {type: b}]`, each branch with
 * the keywords of its own type (and the enum values of that type), the annotations
 * (description, default…) staying outside. The same values validate; but a client that maps
 * tool schemas onto a single-`type` dialect (Gemini's function declarations, say) no longer
 * rejects the tool, and the MCP Inspector's `--strict` has nothing to say about it.
 * Returns a copy; the input is not changed.
 */
export function portableTypes(schema: JsonSchema): JsonSchema {
  return rewrite(schema) as JsonSchema;
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) copy[key] = rewrite(value);
  const types = copy.type;
  if (!Array.isArray(types) || types.length < 2 || 'anyOf' in copy) return copy;
  const outside: JsonSchema = {};
  for (const [key, value] of Object.entries(copy)) if (key !== 'type' && key !== 'enum' && !TYPED_KEYWORDS.has(key)) outside[key] = value;
  const values = Array.isArray(copy.enum) ? (copy.enum as unknown[]) : undefined;
  const branches = (types as string[]).map((type) => {
    const branch: JsonSchema = { type };
    for (const key of KEYWORDS_OF[type] ?? []) if (key in copy) branch[key] = copy[key];
    const own = values?.filter((v) => typeOf(v) === type || (type === 'number' && typeof v === 'number'));
    if (own) branch.enum = own;
    return branch;
  });
  return { ...outside, anyOf: branches };
}
