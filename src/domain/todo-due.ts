import { TZDate } from '@date-fns/tz';
import { addDays, format } from 'date-fns';
import { zoneOrUtc } from './fields.js';

export const DUE_FILTERS = ['overdue', 'today', 'week'] as const;
export type DueFilter = (typeof DUE_FILTERS)[number];

/** `now` as seen in the member's zone; UTC when the member set none. */
function zoned(now: Date, tz: string | null): TZDate {
  return new TZDate(now.getTime(), zoneOrUtc(tz));
}

/** The calendar day (`YYYY-MM-DD`) it is at `now` in `tz`, or `daysAhead` calendar days later there. */
export function localToday(now: Date, tz: string | null, daysAhead = 0): string {
  const local = zoned(now, tz);
  return format(daysAhead === 0 ? local : addDays(local, daysAhead), 'yyyy-MM-dd');
}

/** Which `due_on` dates a due filter keeps: `from`/`to` inclusive, `before` exclusive. */
export interface DueRange {
  from?: string;
  to?: string;
  before?: string;
}

/**
 * `overdue`: due before today; `today`: due today; `week`: due within the next 7 days
 * including today. "Today" is the member's own calendar day, so the answer flips at their
 * midnight, not the server's.
 */
export function dueRange(filter: DueFilter, now: Date, tz: string | null): DueRange {
  const local = zoned(now, tz);
  const today = format(local, 'yyyy-MM-dd');
  switch (filter) {
    case 'overdue':
      return { before: today };
    case 'today':
      return { from: today, to: today };
    case 'week':
      // addDays on a TZDate counts calendar days in that zone, so DST changes do not shift it.
      return { from: today, to: format(addDays(local, 6), 'yyyy-MM-dd') };
  }
}
