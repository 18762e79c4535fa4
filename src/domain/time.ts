/** Postgres timestamptz text (`2026-11-21 09:00:00.123456+00`) as a Date (milliseconds). */
export function pgTimestamp(ts: string): Date {
  return new Date(ts.includes('T') ? ts : ts.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
}

// Sessions run in UTC (src/db/connect.ts), so timestamps arrive as `YYYY-MM-DD HH:MM:SS[.ffffff]+00`.
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/** Postgres timestamptz text as ISO 8601 with milliseconds, for output. Hot path of every list. */
export function toIso(ts: string): string;
export function toIso(ts: string | null): string | null;
export function toIso(ts: string | null): string | null {
  if (ts === null) return null;
  const m = UTC_TEXT.exec(ts);
  if (m) return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  const d = pgTimestamp(ts);
  return Number.isNaN(d.getTime()) ? ts : d.toISOString();
}
