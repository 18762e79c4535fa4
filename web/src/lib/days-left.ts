import { daysBetween, formatDate } from './dates';

/**
 * "ends Mar 4 · 3 days left", "ended Mar 4 · 2 days ago", "ends today", counted from the
 * caller's today (getMe).
 */
export function endsText(endsOn: string | null, today: string): string {
  if (!endsOn) return 'no end date';
  const when = formatDate(endsOn, today);
  const d = daysBetween(today, endsOn);
  if (d === 0) return `ends today (${when})`;
  if (d > 0) return `ends ${when} · ${d} day${d === 1 ? '' : 's'} left`;
  return `ended ${when} · ${-d} day${d === -1 ? '' : 's'} ago`;
}
