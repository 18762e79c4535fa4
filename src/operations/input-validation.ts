import { z } from 'zod';
import { validationFailed, type FieldError } from '../domain/errors.js';
import { closestField } from './field-names.js';
import { fieldSentence, issueMessage } from './issue-messages.js';
import type { Operation, OperationCore } from './operation.js';

/**
 * Where a value travels in an HTTP request, or `input` for an in-process call's one object;
 * also the field name of a problem with the whole part.
 */
export type Part = 'path' | 'query' | 'body' | 'input';

export interface RequestParts {
  path?: unknown;
  query?: unknown;
  body?: unknown;
}

/** A part the operation does not take: strict and empty, so anything sent in it is an unknown field. */
const NOTHING = z.strictObject({});

/**
 * Validates a request's parts with the operation's own schemas, the same for every face
 * (HTTP routes, MCP tools, Slack commands), and returns the merged input or throws one 422
 * `validation_failed` listing every problem of every part:
 *
 * - path and query values arrive as text and are read strictly as the field's declared type
 *   (`limit=1e2` is not an integer, `done=yes` is not a boolean);
 * - a field the operation does not define is `unknown_field`, never stripped;
 * - text Postgres cannot hold as sent (a NUL character, or half of a UTF-16 surrogate pair,
 *   which would be stored as U+FFFD) is refused wherever it is, but in the fields that take
 *   any text (`anyText`: a search query, a cursor);
 * - a PATCH must change something: an empty body is refused, on every resource alike;
 * - one error per field, each a sentence (issue-messages.ts).
 */
export function validateInput(op: Operation, parts: RequestParts, pathNames: 'url' | 'input' = 'url'): Record<string, unknown> {
  const errors: FieldError[] = [];
  const input: Record<string, unknown> = {};
  // Path parameters arrive under the URL's names and reach the domain under their input names
  // (`pathInput`); a problem with one is named as the caller named it.
  const rename = (part: Part, name: string) => (part === 'path' ? (op.pathInput[name] ?? name) : name);
  const checks: [Part, z.ZodObject | undefined, unknown][] = [
    ['path', op.params, parts.path ?? {}],
    ['query', op.query, parts.query ?? {}],
    // No body is an empty one; a JSON `null` is a body, and not an object.
    ['body', op.body, parts.body === undefined ? {} : parts.body],
  ];
  for (const [part, schema, raw] of checks) {
    // A part the operation does not take, sent empty: nothing to check (most reads' query and body).
    if (schema === undefined && isEmptyObject(raw)) continue;
    const value = part === 'body' ? raw : readText(op.textTypes, raw);
    const result = checkPart(part, schema ?? NOTHING, value, op.anyTextFields);
    if (result.errors.length > 0) {
      errors.push(...result.errors.map((e) => (part === 'path' && pathNames === 'input' ? renameField(e, rename(part, e.field)) : e)));
    } else {
      for (const [key, v] of Object.entries(result.data)) input[rename(part, key)] = v;
    }
  }
  if (errors.length === 0 && op.changes.length > 0 && isEmptyPatch(parts.body)) errors.push(nothingToChange('body', op.changes));
  if (errors.length > 0) throw validationFailed(errors);
  return input;
}

/**
 * Validates the typed input of an in-process call (the Slack face, the jobs) with the
 * operation's own merged input schema: no text to read as numbers, no parts to route. The
 * rules and words are `validateInput`'s (the same `checkPart`), so a bad value is the same 422
 * `validation_failed` with the same field error `/v1` gives for it. An `undefined` value is a
 * field not given, as JSON would drop it.
 */
export function validateCallInput(op: OperationCore, args: Record<string, unknown>): Record<string, unknown> {
  const given: Record<string, unknown> = {};
  for (const key in args) if (args[key] !== undefined) given[key] = args[key];
  const result = checkPart('input', op.input, given, op.anyTextFields);
  const errors = result.errors;
  if (errors.length === 0 && op.changes.length > 0 && !op.changes.some((key) => key in given)) errors.push(nothingToChange('input', op.changes));
  if (errors.length > 0) throw validationFailed(errors);
  return result.data;
}

/** A PATCH that changes nothing; refused on every resource alike. */
function nothingToChange(part: Part, names: readonly string[]): FieldError {
  return { field: part, code: 'empty', message: `Give at least one field to change: ${names.join(', ')}.` };
}

/**
 * For a route that takes no input and is not an operation of the table (the OpenAPI
 * document): any query parameter is refused as an operation's would be, 422 `unknown_field`,
 * in the same words.
 */
export function refuseAnyQuery(query: unknown): void {
  if (isEmptyObject(query)) return;
  const { errors } = checkPart('query', NOTHING, query, []);
  if (errors.length > 0) throw validationFailed(errors);
}

function renameField(e: FieldError, field: string): FieldError {
  return field === e.field ? e : { ...e, field, message: e.message.startsWith(`${e.field} `) ? `${field}${e.message.slice(e.field.length)}` : e.message };
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const _ in value) return false;
  return true;
}

function isEmptyPatch(body: unknown): boolean {
  return body === undefined || isEmptyObject(body);
}

interface Checked {
  data: Record<string, unknown>;
  errors: FieldError[];
}

function checkPart(part: Part, schema: z.ZodObject, value: unknown, anyText: readonly string[]): Checked {
  // First, before anything walks the value recursively (the character search, zod): a hostile
  // depth would overflow the stack and answer 500.
  const deep = tooDeepFields(part, value);
  if (deep.length > 0) return { data: {}, errors: deep };
  // Nearly every value is storable: found so without building a path.
  const unstorable = (hasUnstorable(value) ? unstorableFields(value, []) : [])
    .filter(({ path }) => !(path.length === 1 && anyText.includes(path[0]!)))
    .map(({ path, text }) => ({ field: fieldName(part, path), text }));
  const refused = unstorable.map((u) => u.field);
  // Parsed without options first: any option takes zod off its fast path (about 1 µs of a
  // read's few, measured), and the options only word the issues. Only a failure is parsed
  // again, with tack's messages; reportInput keeps each issue's input, so a missing field is
  // told apart from a wrong one.
  let result = schema.safeParse(value);
  if (!result.success) result = schema.safeParse(value, { error: issueMessage, reportInput: true });
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const add = (e: FieldError) => {
    if (seen.has(e.field)) return;
    seen.add(e.field);
    errors.push(e);
  };
  if (!result.success) {
    // The issue that names a rule of tack wins over zod's own bounds (the safe-integer range).
    const issues = [...result.error.issues].sort((a, b) => Number(isMachineBound(a)) - Number(isMachineBound(b)));
    for (const issue of issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) add(unknownField(part, schema, [...issue.path, key]));
        continue;
      }
      const field = fieldName(part, issue.path);
      if (refused.includes(field)) continue;
      add({ field, code: codeOf(issue), message: fieldSentence(field, issue.message) });
    }
  }
  for (const { field, text } of unstorable) add({ field, code: 'invalid_characters', message: unstorableMessage(field, text) });
  if (errors.length > 0) return { data: {}, errors: sortByField(errors, value) };
  return { data: result.data as Record<string, unknown>, errors };
}

/** Errors in the order the fields were sent, so the first one shown is the first one written. */
function sortByField(errors: FieldError[], value: unknown): FieldError[] {
  const order = value && typeof value === 'object' ? Object.keys(value) : [];
  const rank = (e: FieldError) => {
    const i = order.indexOf(e.field.split('.')[0]!);
    return i === -1 ? order.length : i;
  };
  return [...errors].sort((a, b) => rank(a) - rank(b));
}

function fieldName(part: Part, path: readonly PropertyKey[]): string {
  return path.length === 0 ? part : path.map(String).join('.');
}

function codeOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'required';
  if (issue.code === 'custom') {
    const code = (issue.params as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? code : 'invalid';
  }
  if (issue.code === 'invalid_union') return 'invalid';
  return issue.code;
}

function isMachineBound(issue: z.core.$ZodIssue): boolean {
  return (issue.code === 'too_big' || issue.code === 'too_small') && Math.abs(Number(issue.code === 'too_big' ? issue.maximum : issue.minimum)) >= Number.MAX_SAFE_INTEGER;
}

function unknownField(part: Part, schema: z.ZodObject, path: readonly PropertyKey[]): FieldError {
  const field = path.map(String).join('.');
  const known = path.length === 1 ? Object.keys(schema.shape) : [];
  const where = part === 'query' ? 'query parameter' : part === 'path' ? 'path parameter' : 'field';
  let message: string;
  if (path.length === 1 && known.length === 0) {
    message =
      part === 'body'
        ? `${field} is not accepted: this request takes no body.`
        : part === 'input'
          ? `${field} is not accepted: this operation takes no input.`
          : `${field} is not accepted: this request takes no ${where}s.`;
  } else {
    const guess = closestField(String(path[path.length - 1]), known);
    message = guess
      ? `${field} is not a ${where} of this request; did you mean ${guess}?`
      : `${field} is not a ${where} of this request; remove it${known.length > 0 ? ` (the ${where}s are ${known.join(', ')})` : ''}.`;
  }
  return { field, code: 'unknown_field', message };
}

/** No field of any operation nests deeper than a few levels; this leaves room and stops abuse. */
const MAX_DEPTH = 32;

/** The fields (or the whole part) whose value nests arrays or objects deeper than MAX_DEPTH. */
function tooDeepFields(part: Part, value: unknown): FieldError[] {
  const error = (field: string): FieldError => ({ field, code: 'too_deep', message: `${field} nests arrays or objects more than ${MAX_DEPTH} levels deep; send a flat value.` });
  if (!value || typeof value !== 'object') return [];
  if (Array.isArray(value)) return deeperThan(value, MAX_DEPTH) ? [error(part)] : [];
  const errors: FieldError[] = [];
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    // A flat value (nearly every field) cannot be too deep: no walk for it.
    if (v && typeof v === 'object' && deeperThan(v, MAX_DEPTH - 1)) errors.push(error(key));
  }
  return errors;
}

/** Whether `value` nests more than `max` levels, found without recursion (the depth is the attacker's). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

// String.prototype.isWellFormed (no lone surrogate): Node 20 has it; TypeScript's ES2023 lib does not declare it.
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Text Postgres cannot hold as sent: a NUL character, or a lone UTF-16 surrogate (stored as U+FFFD). */
function isUnstorable(text: string): boolean {
  return text.includes('\u0000') || !isWellFormed(text);
}

function unstorableMessage(field: string, text: string): string {
  return text.includes('\u0000')
    ? `${field} must not contain the NUL character (\\u0000).`
    : `${field} must not contain half of a UTF-16 surrogate pair (a lone \\uD800 to \\uDFFF); send the whole character.`;
}

/** Whether any string value (at any depth, already bounded by `tooDeepFields`) is unstorable. */
function hasUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return isUnstorable(value);
  if (!value || typeof value !== 'object') return false;
  for (const key in value) if (hasUnstorable((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** The string values (at any depth) that are unstorable, with their paths. */
function unstorableFields(value: unknown, path: string[]): { path: string[]; text: string }[] {
  if (typeof value === 'string') return isUnstorable(value) ? [{ path, text: value }] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => unstorableFields(v, [...path, String(i)]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => unstorableFields(v, [...path, k]));
  return [];
}

/** The declared type of a path or query field, where text must be read as something else. */
export type TextType = 'integer' | 'number' | 'boolean';

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * Path and query values are text. A field declared integer, number or boolean is read from
 * the exact text of one (`25`, `2.5`, `true`); anything else is left as text, so the
 * schema refuses it with a message saying what it must be. Never `Number("1e2")`.
 */
function readText(types: Readonly<Record<string, TextType>>, raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const type = types[key];
    if (typeof value !== 'string' || type === undefined) out[key] = value;
    else if (type === 'integer') out[key] = INTEGER.test(value) ? Number(value) : value;
    else if (type === 'number') out[key] = NUMBER.test(value) ? Number(value) : value;
    else out[key] = value === 'true' ? true : value === 'false' ? false : value;
  }
  return out;
}
