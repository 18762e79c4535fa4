import { z } from 'zod';

/**
 * The one place where zod's issues become words a person can act on. Used as the per-parse
 * error map of every operation input (see input-validation.ts), so it applies only where a
 * schema gave no message of its own; schema messages are written in the same form.
 *
 * A message is a predicate ("must be a date as YYYY-MM-DD") that `fieldSentence` turns into
 * a sentence naming the field. No validator jargon ("custom", "invalid_union"), no machine
 * bounds (the safe-integer range), no echo of the value itself.
 */
export function issueMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return typeMessage(issue.expected, issue.input, issue.inst);
    case 'too_small':
      return sizeMessage('small', issue.origin, Number(issue.minimum), issue.inclusive ?? true);
    case 'too_big':
      return sizeMessage('big', issue.origin, Number(issue.maximum), issue.inclusive ?? true);
    case 'invalid_format':
      return formatMessage(issue.format);
    case 'invalid_value':
      return choiceMessage(issue.values);
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return `has fields this request does not take: ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return unionMessage(issue.errors);
    case 'invalid_key':
    case 'invalid_element':
      return 'contains a value that is not valid';
    default:
      return 'is not valid';
  }
}

/** `due_on` + `must be a date …` → `due_on must be a date ….`; a message that is already a sentence stays one. */
export function fieldSentence(field: string, message: string): string {
  const text = message.trim();
  const sentence = /^[A-Z]/.test(text) ? text : `${field} ${text}`;
  return /[.?!]$/.test(sentence) ? sentence : `${sentence}.`;
}

const NOUNS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  date: 'a date',
  null: 'null',
};

/** What a value of the wrong JSON type is told, in `issueMessage`'s words: `must be a whole number, such as 25`. */
export function wrongTypeMessage(kind: 'string' | 'integer' | 'number' | 'boolean' | 'array', input: unknown): string {
  return typeMessage(kind === 'integer' ? 'int' : kind, input, undefined);
}

function typeMessage(expected: string, input: unknown, inst: unknown): string {
  if (input === undefined) return 'is required';
  const wantsInt = expected === 'int' || (expected === 'number' && inst instanceof z.ZodNumber && inst.isInt);
  const noun = wantsInt ? 'a whole number, such as 25' : (NOUNS[expected] ?? expected);
  if (input === null) return `must be ${noun}, not null`;
  // A list where one value belongs: a JSON array, or a query parameter given twice.
  if (Array.isArray(input) && expected !== 'array') return `must be ${noun}, not a list`;
  if (expected === 'number' && typeof input === 'number') return 'must be a finite number';
  return `must be ${noun}`;
}

function sizeMessage(which: 'small' | 'big', origin: string, bound: number, inclusive: boolean): string {
  const at = which === 'small' ? 'at least' : 'at most';
  const beyond = which === 'small' ? 'greater than' : 'less than';
  switch (origin) {
    case 'string':
      if (which === 'small' && bound <= 1) return 'must not be empty';
      return `must be ${at} ${bound} characters long`;
    case 'array':
    case 'set':
      if (which === 'small' && bound <= 1) return 'must not be empty';
      return `must have ${at} ${bound} ${bound === 1 ? 'item' : 'items'}`;
    case 'number':
    case 'int':
    case 'bigint':
      // The safe-integer range is zod's, not a rule of tack: say so in words, not digits.
      if (Math.abs(bound) >= Number.MAX_SAFE_INTEGER) return which === 'big' ? 'is too large' : 'is too small';
      return inclusive ? `must be ${at} ${bound}` : `must be ${beyond} ${bound}`;
    default:
      return which === 'small' ? 'is too small' : 'is too large';
  }
}

const FORMATS: Record<string, string> = {
  date: 'must be a calendar date as YYYY-MM-DD, such as 2030-01-31',
  datetime: 'must be a date and time with a time zone, such as 2030-01-31T17:00:00Z',
  email: 'must be an e-mail address, such as ann@example.com',
  url: 'must be a URL, such as https://example.com',
  uuid: 'must be a UUID',
  time: 'must be a time as HH:MM:SS',
};

function formatMessage(format: string): string {
  return FORMATS[format] ?? 'is not in the expected form';
}

function choiceMessage(values: readonly unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  if (shown.length === 1) return `must be ${shown[0]}`;
  return `must be one of ${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`;
}

/** "must be me" and "must be text" → "must be me or text"; otherwise the first branch's words. */
function unionMessage(branches: readonly (readonly z.core.$ZodIssue[])[]): string {
  const firsts = branches.map((issues) => issues[0]?.message ?? '');
  if (firsts.length > 0 && firsts.every((m) => m.startsWith('must be '))) {
    return `must be ${[...new Set(firsts.map((m) => m.slice('must be '.length)))].join(' or ')}`;
  }
  return firsts.find((m) => m.length > 0) ?? 'is not valid';
}
