import { TZDate } from '@date-fns/tz';
import { addDays, format, getISOWeek, getISOWeekYear, startOfISOWeek } from 'date-fns';
import type { SlackCadence } from '../vocabulary.js';
import { zoneOrUtc } from './fields.js';
import { localToday } from './todo-due.js';

/**
 * When jobs are due in someone's own time zone. Every instant is computed with TZDate from
 * the local calendar date and hour, so a DST change (a 23- or 25-hour day) moves the UTC
 * instant, never the local hour.
 */

/** The instant `date` (YYYY-MM-DD) at `hour`:00 in `tz`. */
export function atLocalHour(date: string, hour: number, tz: string | null): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(new TZDate(y, m - 1, d, hour, 0, 0, zoneOrUtc(tz)).getTime());
}

/** `date` (YYYY-MM-DD) moved by whole calendar days. */
export function shiftDate(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return format(addDays(new TZDate(y, m - 1, d, 'UTC'), days), 'yyyy-MM-dd');
}

/**
 * How far back a reminder that never went out (the jobs were down at its hour, or the todo
 * was given a past due date) is still sent: a todo due yesterday still gets one today; older
 * ones do not, so an outage never ends in a flood of stale reminders.
 */
export const REMINDER_CATCH_UP_DAYS = 1;

/**
 * The due dates whose reminder is due at `now` for someone in `tz`: up to today once it is
 * `hour`:00 or later there, else up to yesterday; from `REMINDER_CATCH_UP_DAYS` before today
 * (local calendar days).
 */
export function reminderDueDates(now: Date, tz: string | null, hour: number): { from: string; through: string } {
  const today = localToday(now, zoneOrUtc(tz));
  const through = now.getTime() >= atLocalHour(today, hour, tz).getTime() ? today : shiftDate(today, -1);
  return { from: shiftDate(today, -REMINDER_CATCH_UP_DAYS), through };
}

/**
 * The summary period it is at `now` in `tz`: the local date (daily) or ISO week such as
 * `2026-W10` (weekly); `due` once the period has reached `hour`:00 on its first day (weekly:
 * Monday). A period whose summary did not go out at its hour is still sent later in it.
 */
export function summaryPeriod(now: Date, tz: string, cadence: SlackCadence, hour: number): { period: string; due: boolean } {
  const local = new TZDate(now.getTime(), zoneOrUtc(tz));
  if (cadence === 'daily') {
    const period = format(local, 'yyyy-MM-dd');
    return { period, due: now.getTime() >= atLocalHour(period, hour, tz).getTime() };
  }
  const period = `${getISOWeekYear(local)}-W${String(getISOWeek(local)).padStart(2, '0')}`;
  const monday = format(startOfISOWeek(local), 'yyyy-MM-dd');
  return { period, due: now.getTime() >= atLocalHour(monday, hour, tz).getTime() };
}
