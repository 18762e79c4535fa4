/** Postgres timestamptz text (`2026-11-21 09:00:00.123456+00`) as a Date (milliseconds). */
export function pgTimestamp(ts: string): Date {
  return new Date(ts.includes('T') ? ts : ts.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
}

/** Postgres timestamptz text as ISO 8601 for output. */
export function toIso(ts: string): string;
export function toIso(ts: string | null): string | null;
export function toIso(ts: string | null): string | null {
  if (ts === null) return null;
  const d = pgTimestamp(ts);
  return Number.isNaN(d.getTime()) ? ts : d.toISOString();
}
