import { z } from 'zod';

/** Field schemas shared by several resources. */

export const id = (prefix: string) => z.string().min(1).max(64).describe(`Identifier (${prefix}_…)`);

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

/** A calendar date, `YYYY-MM-DD`, that exists. */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
  }, 'must be a real calendar date');

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
  cursor: z.string().max(512).optional().describe('Opaque cursor from a previous next_cursor'),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, default 25, at most 100'),
};

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().optional() });

/**
 * A boolean query parameter: `true`/`false` as text from HTTP, a real boolean from MCP and
 * the CLI. Never `z.coerce.boolean`, which reads the text "false" as true.
 */
export const queryBoolean = z
  .union([z.boolean(), z.stringbool({ truthy: ['true'], falsy: ['false'], case: 'sensitive' })])
  .describe('true or false');
