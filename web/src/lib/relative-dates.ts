import { daysBetween, formatDate } from './dates.js';

/**
 * Dates as people say them, counted from the caller's today as tack gives it (getMe's
 * `today`, in their zone), never from the browser's clock: "Today", "Tomorrow", "Yesterday",
 * the day's name within the coming week ("Mon"), "in 12 days" within a month, "3 days ago"
 * within the past month, the date itself beyond ("Mar 4", "Mar 4, 2027"). Pages show no date
 * until today is known (a date in one wording, then another, reads as a change).
 */
export function relativeDay(date: string, today: string): string {
  const d = daysBetween(today, date);
  if (d === 0) return 'Today';
  if (d === 1) return 'Tomorrow';
  if (d === -1) return 'Yesterday';
  if (d >= 2 && d <= 6) return weekday.format(utc(date));
  if (d >= 7 && d <= 30) return `in ${d} days`;
  if (d <= -2 && d >= -30) return `${-d} days ago`;
  return formatDate(date, today);
}

const weekday = new Intl.DateTimeFormat('en', { weekday: 'short', timeZone: 'UTC' });
const full = new Intl.DateTimeFormat('en', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

const utc = (date: string) => new Date(`${date}T00:00:00Z`);

/** "Monday, March 4, 2027": what a chip shows on hover. */
export function absoluteDay(date: string): string {
  return full.format(utc(date));
}
