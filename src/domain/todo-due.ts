import { TZDate } from '@date-fns/tz';
import { addDays, format, startOfDay } from 'date-fns';
import { z } from 'zod';
import type { Ctx } from './context.js';
import { isCalendarDate, zoneOrUtc } from './fields.js';
import { callerZone } from './time-zone.js';

export const DUE_FILTERS = ['overdue', 'today', 'week'] as const;
export type DueFilter = (typeof DUE_FILTERS)[number];

/** `now` as seen in `tz` (a zone `memberZone` chose; UTC when none). */
function zoned(now: Date, tz: string | null): TZDate {
  return new TZDate(now.getTime(), zoneOrUtc(tz));
}

/** The calendar day (`YYYY-MM-DD`) it is at `now` in `tz`, or `daysAhead` calendar days later there. */
export function localToday(now: Date, tz: string | null, daysAhead = 0): string {
  const local = zoned(now, tz);
  return format(daysAhead === 0 ? local : addDays(local, daysAhead), 'yyyy-MM-dd');
}

/** The instant the calendar day it is at `now` in `tz` ends there (the next local midnight), in ms. */
export function dayEndsAt(now: Date, tz: string | null): number {
  return startOfDay(addDays(zoned(now, tz), 1)).getTime();
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

/** Days a due date may be named by instead of a date, on every face (`/todo add … due:tomorrow`, `/v1`, CLI, MCP). */
export const RELATIVE_DAYS = { today: 0, tomorrow: 1 } as const;
type RelativeDay = keyof typeof RELATIVE_DAYS;

function isRelativeDay(value: unknown): value is RelativeDay {
  return typeof value === 'string' && Object.hasOwn(RELATIVE_DAYS, value);
}

/**
 * A due date: `YYYY-MM-DD`, or `today` or `tomorrow` in the caller's time zone. The words
 * reach the domain already resolved: `execute` calls `resolveDueDates` for every field made
 * from this schema, before the operation runs.
 */
export const dueDate = z
  .string()
  .refine((s) => isRelativeDay(s) || isCalendarDate(s), 'must be a date as YYYY-MM-DD (such as 2030-01-31), today or tomorrow')
  .meta({
    description: 'A date as YYYY-MM-DD, or today or tomorrow in your time zone',
    anyOf: [{ format: 'date' }, { enum: Object.keys(RELATIVE_DAYS) }],
  });

/** The date `value` names, as the member in `tz` sees it at `now`; a date stays as it is. */
export function resolveDueDate(value: string, now: Date, tz: string | null): string {
  return isRelativeDay(value) ? localToday(now, tz, RELATIVE_DAYS[value]) : value;
}

/** Replaces `today`/`tomorrow` in the given fields of `input` by dates in the caller's time zone. */
export async function resolveDueDates(
  ctx: Pick<Ctx, 'db' | 'principal' | 'clock'>,
  input: Record<string, unknown>,
  fields: readonly string[],
): Promise<Record<string, unknown>> {
  const relative = fields.filter((f) => isRelativeDay(input[f]));
  if (relative.length === 0) return input;
  const tz = await callerZone(ctx);
  const now = ctx.clock();
  const out = { ...input };
  for (const f of relative) out[f] = resolveDueDate(out[f] as string, now, tz);
  return out;
}

/** Where a todo's due date falls for the caller: the due filter that keeps it, or `later`, or `none`. */
export const DUE_STATES = ['overdue', 'today', 'week', 'later', 'none'] as const;
export type DueState = (typeof DUE_STATES)[number];

/** The caller's days at one moment: today, and the last day `due=week` keeps (today + 6). */
export interface DueCalendar {
  today: string;
  weekEnd: string;
}

/** The last calendar worked out per zone, with the minute it is for. */
const calendars = new Map<string, { minute: number; cal: DueCalendar }>();

/**
 * The calendar at `now` in `tz`. A day begins on a whole minute in every zone in use (offsets
 * are whole minutes), so one calendar holds for its whole minute: it is worked out once per
 * zone and minute (every todo answer asks for it, and the zone arithmetic is not cheap).
 */
export function dueCalendar(now: Date, tz: string | null): DueCalendar {
  const zone = zoneOrUtc(tz);
  const minute = Math.floor(now.getTime() / 60_000);
  const known = calendars.get(zone);
  if (known?.minute === minute) return known.cal;
  const week = dueRange('week', now, zone);
  const cal = Object.freeze({ today: week.from!, weekEnd: week.to! });
  calendars.set(zone, { minute, cal });
  return cal;
}

/** The calendar of the caller (their zone by the one rule) at the Ctx's clock. */
export async function callerCalendar(ctx: Pick<Ctx, 'db' | 'principal' | 'clock'>): Promise<DueCalendar> {
  return dueCalendar(ctx.clock(), await callerZone(ctx));
}

/**
 * A todo's `due_state`, exactly as the due filters choose (so a todo listed by `due=overdue`
 * says `overdue`): `overdue` not done and due before today; `today` due today; `week` due in
 * the six days after today; `later` after that; `none` without a date, or done and due before
 * today (it is late no more).
 */
export function dueState(dueOn: string | null, done: boolean, cal: DueCalendar): DueState {
  if (dueOn === null) return 'none';
  if (dueOn < cal.today) return done ? 'none' : 'overdue';
  if (dueOn === cal.today) return 'today';
  return dueOn <= cal.weekEnd ? 'week' : 'later';
}
