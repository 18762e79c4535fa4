import { z } from 'zod';

/** Field schemas shared by several resources. */

/**
 * Schemas whose value names another thing (an id, a slug, a ref): an operation that takes
 * one can answer 404 `<resource>_not_found`, and its OpenAPI entry says so.
 */
export const references = z.registry<{ resource: string }>();

/**
 * Fields that take any text at all, NUL included, because the domain reads them itself: a
 * search query (sanitized for Postgres) and a cursor (opaque; anything wrong with it is 400
 * `invalid_cursor`). Every other text with a NUL is refused as a field error.
 */
export const anyText = z.registry();

/** A key naming a `resource` of the organization: its id, or its slug or ref where it has one. */
export const key = (resource: string) => z.string().trim().min(1).max(64).register(references, { resource });

export const id = (prefix: string) =>
  z.string().min(1).max(64).register(references, { resource: prefix }).describe(`Identifier (${prefix}_…)`);

// Building an Intl.DateTimeFormat is slow, and the due filters and the reminder sweep ask
// about the same few zones over and over. Only valid zones are remembered (a finite set).
const knownZones = new Set<string>();

export function isIanaZone(tz: string): boolean {
  if (knownZones.has(tz)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    return false;
  }
  knownZones.add(tz);
  return true;
}

/** The zone to compute someone's local time in: theirs when set and valid, else UTC. */
export function zoneOrUtc(tz: string | null | undefined): string {
  return tz && isIanaZone(tz) ? tz : 'UTC';
}

export const timeZone = z.string().max(64).refine(isIanaZone, 'must be an IANA time zone such as Europe/Berlin');

/** A calendar date, `YYYY-MM-DD`, that exists (one check, so a bad date is one message). */
export const isoDate = z.iso.date().refine((s) => s >= '0001', 'must be a date from 0001-01-01 on');

export function isCalendarDate(s: string): boolean {
  return isoDate.safeParse(s).success;
}

export const isoDateTime = z.iso.datetime({ offset: true });

/** Text a person typed: trimmed, no control characters but newlines and tabs. */
export const label = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s), 'must not contain control characters');

/** A link people can open: http or https only (never `javascript:`), at most 2000 characters. */
export const webUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2000, 'must be at most 2000 characters');

export const pageQuery = {
  cursor: z.string().max(512).register(anyText, {}).optional().describe('Opaque cursor from a previous next_cursor'),
  limit: z.number().int().min(1).max(100).optional().describe('Page size, default 25, at most 100'),
};

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().optional() });

/**
 * A boolean query parameter. The text `true` or `false` is read as one by the input
 * validation (src/operations/input-validation.ts), for every integer, number or boolean
 * field of a path or query; never `z.coerce`, which reads "false" as true and "1e2" as 100.
 */
export const queryBoolean = z.boolean();

/** How many Unicode code points `text` holds (what people count as characters; `length` counts UTF-16 units). */
export const codePoints = (text: string): number => {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
};

/**
 * Markdown a person wrote (a card's description, a comment): kept as written (leading spaces
 * mean something in Markdown), not whitespace only, at most `max` code points (contract §11),
 * no control characters but newlines, carriage returns and tabs.
 */
export const markdownText = (max: number) =>
  z
    .string()
    .refine((s) => s.trim().length > 0, { message: 'must not be empty or only whitespace', params: { code: 'too_small' } })
    .refine((s) => s.length <= max || codePoints(s) <= max, { message: `must be at most ${max} characters`, params: { code: 'too_big' }, abort: true })
    .refine((s) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s), { message: 'must not contain control characters', params: { code: 'invalid_characters' } })
    .describe(`Markdown, at most ${max} characters (Unicode code points)`);
