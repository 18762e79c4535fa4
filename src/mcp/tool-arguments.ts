import type { FieldError } from '../domain/errors.js';
import { IDEMPOTENCY_KEY_MESSAGE, IDEMPOTENCY_KEY_PATTERN } from '../domain/idempotency-key.js';
import { closestField } from '../operations/field-names.js';
import { fieldSentence, wrongTypeMessage } from '../operations/issue-messages.js';
import type { FieldEntry, FieldKind, JsonSchema, OperationEntry } from '../operations/manifest.js';

/** The argument of every write tool that means what the `Idempotency-Key` header means on /v1. */
export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotency_key';

const IDEMPOTENCY_KEY_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: IDEMPOTENCY_KEY_PATTERN.source,
  description:
    'Optional. Send the same key when you retry this call: tack applies the write once and answers the retry with the first answer. ' +
    'A new key for each new write (a UUID does). Same as the Idempotency-Key header of /v1.',
};

/**
 * The tool's input schema: the operation's own fields, `idempotency_key` on writes, and
 * nothing else (`additionalProperties: false`, as /v1 refuses unknown fields).
 */
export function toolInputSchema(entry: OperationEntry): JsonSchema {
  const properties = { ...((entry.inputSchema.properties ?? {}) as Record<string, JsonSchema>) };
  if (!entry.readOnly) {
    if (IDEMPOTENCY_KEY_ARGUMENT in properties) throw new Error(`${entry.name} has a field named ${IDEMPOTENCY_KEY_ARGUMENT}`);
    properties[IDEMPOTENCY_KEY_ARGUMENT] = IDEMPOTENCY_KEY_SCHEMA;
  }
  return { ...entry.inputSchema, type: 'object', properties, additionalProperties: false };
}

export interface ToolCall {
  /** The operation's input: the arguments it takes, of the JSON type it takes, without `idempotency_key`. */
  input: Record<string, unknown>;
  idempotencyKey: string | undefined;
  /**
   * What is wrong before the operation's own validation can tell: an argument the tool does
   * not take (`unknown_field`, named against the tool's arguments), one of another JSON type
   * than a path or query field takes (`invalid_type`: the URL's text would hide it), a bad
   * `idempotency_key`. Empty when there is nothing.
   */
  errors: FieldError[];
  /**
   * The arguments as the operation's validation should read them to find everything else
   * wrong with the call (a required one missing, a value out of range), so that every problem
   * is told at once, as /v1 tells them: the input, the arguments it does not take, and a
   * path or query value of the wrong type as the text a URL would carry.
   */
  toValidate: Record<string, unknown>;
}

/**
 * Splits a tool call's arguments into the operation's input and its idempotency key, and
 * finds what the tool does not take: an unknown argument is a field error `unknown_field`
 * (never dropped silently), as on /v1; so is an argument of the wrong JSON type where /v1
 * takes it as text in the URL (a path or query field: `limit: "10"`, `id: 123`), which the
 * URL's text would otherwise hide from validation. The same on both transports; each then
 * has the operation's validation judge `toValidate` and answers with `allErrors`.
 */
export function toolCall(entry: OperationEntry, args: Record<string, unknown>): ToolCall {
  const known = new Map(entry.fields.map((f) => [f.name, f]));
  const input: Record<string, unknown> = {};
  const toValidate: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  let idempotencyKey: string | undefined;
  for (const [name, value] of Object.entries(args)) {
    const field = known.get(name);
    if (field) {
      const wrong = field.in === 'body' ? undefined : wrongType(field, value);
      if (wrong) {
        errors.push({ field: name, code: 'invalid_type', message: fieldSentence(name, wrongTypeMessage(wrong, value)) });
        toValidate[name] = Array.isArray(value) ? value.map(String) : String(value);
      } else {
        input[name] = value;
        toValidate[name] = value;
      }
    } else if (name === IDEMPOTENCY_KEY_ARGUMENT && !entry.readOnly) {
      if (value === undefined || value === null) continue;
      if (typeof value === 'string' && IDEMPOTENCY_KEY_PATTERN.test(value)) idempotencyKey = value;
      else errors.push({ field: name, code: 'invalid', message: `${name} ${IDEMPOTENCY_KEY_MESSAGE}.` });
    } else {
      errors.push({ field: name, code: 'unknown_field', message: unknownMessage(entry, name) });
      toValidate[name] = value;
    }
  }
  return { input, idempotencyKey, errors, toValidate };
}

/**
 * Every problem of a call, once: the tool's own (`call.errors`, which word a problem in the
 * tool's terms) and those the operation's validation found in `toValidate` about any other
 * argument, in the order the arguments were given, missing ones last.
 */
export function allErrors(call: ToolCall, validated: readonly FieldError[], args: Record<string, unknown>): FieldError[] {
  const told = new Set(call.errors.map((e) => e.field.split('.')[0]));
  const errors = [...call.errors, ...validated.filter((e) => !told.has(e.field.split('.')[0]))];
  const order = Object.keys(args);
  const rank = (e: FieldError) => {
    const i = order.indexOf(e.field.split('.')[0]!);
    return i === -1 ? order.length : i;
  };
  return errors.sort((a, b) => rank(a) - rank(b));
}

/**
 * The kind a path or query argument should have been, when its JSON type is not the one its
 * schema declares; undefined when it is, or when it is null or absent (an optional value
 * not given, as before; a required one is refused by validation as missing).
 */
function wrongType(field: FieldEntry, value: unknown): Exclude<FieldKind, 'json'> | undefined {
  if (value === null || value === undefined || field.kind === 'json') return undefined;
  if (field.kind === 'array') {
    const item = field.items ?? 'json';
    return Array.isArray(value) && value.every((v) => item === 'json' || isKind(item, v)) ? undefined : 'array';
  }
  return isKind(field.kind, value) ? undefined : field.kind;
}

function isKind(kind: Exclude<FieldKind, 'array' | 'json'>, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

/** A sentence naming what the tool does take (and the likely meant one), so a caller that guessed a name can correct it. */
function unknownMessage(entry: OperationEntry, name: string): string {
  const names = entry.fields.map((f) => f.name);
  if (!entry.readOnly) names.push(IDEMPOTENCY_KEY_ARGUMENT);
  if (names.length === 0) return `${name} is not an argument of ${entry.name}, which takes none.`;
  const guess = closestField(name, names);
  return `${name} is not an argument of ${entry.name}; ${guess ? `did you mean ${guess}? It` : 'it'} takes ${names.join(', ')}.`;
}
