/**
 * Calendar dates as `YYYY-MM-DD` strings. Which day it is for the caller comes from the API
 * (getMe's `today`, in their zone by tack's one rule), never from the browser's clock.
 */

/** The browser's zone: only what the profile form offers to set as one's own. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

const short = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const withYear = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

/** "Mar 4", or "Mar 4, 2027" outside the current year. */
export function formatDate(date: string, today?: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return today && today.slice(0, 4) === date.slice(0, 4) ? short.format(d) : withYear.format(d);
}

export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
}
