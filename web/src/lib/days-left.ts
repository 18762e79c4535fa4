import { daysBetween, formatDate } from './dates';

/** "ends Mar 4 · 3 days left", "ended Mar 4 · 2 days ago", "ends today". */
export function endsText(endsOn: string | null, today: string): string {
  if (!endsOn) return 'no end date';
  const d = daysBetween(today, endsOn);
  const when = formatDate(endsOn, today);
  if (d === 0) return `ends today (${when})`;
  if (d > 0) return `ends ${when} · ${d} day${d === 1 ? '' : 's'} left`;
  return `ended ${when} · ${-d} day${d === -1 ? '' : 's'} ago`;
}
