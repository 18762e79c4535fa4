import { describe, expect, it } from 'vitest';
import { dayEndsAt, dueCalendar, dueRange, dueState, localToday, resolveDueDate } from './todo-due.js';

// 23:30 UTC on 14 March 2026: already the 15th in Tokyo, still the 14th in New York.
const NOW = new Date('2026-03-14T23:30:00Z');

describe('days in the member’s zone', () => {
  it('reads today, and days ahead, as the calendar day it is in the zone (UTC without one)', () => {
    expect(localToday(NOW, 'UTC')).toBe('2026-03-14');
    expect(localToday(NOW, null)).toBe('2026-03-14');
    expect(localToday(NOW, 'Asia/Tokyo')).toBe('2026-03-15');
    expect(localToday(NOW, 'America/New_York')).toBe('2026-03-14');
    expect(localToday(NOW, 'Asia/Tokyo', 1)).toBe('2026-03-16');
  });

  it('ends the day at the next local midnight', () => {
    expect(new Date(dayEndsAt(NOW, 'Asia/Tokyo')).toISOString()).toBe('2026-03-15T15:00:00.000Z');
    expect(new Date(dayEndsAt(NOW, 'UTC')).toISOString()).toBe('2026-03-15T00:00:00.000Z');
  });

  it('resolves today and tomorrow in the zone and leaves a date as it is', () => {
    expect(resolveDueDate('today', NOW, 'Asia/Tokyo')).toBe('2026-03-15');
    expect(resolveDueDate('tomorrow', NOW, 'America/New_York')).toBe('2026-03-15');
    expect(resolveDueDate('2030-01-31', NOW, 'Asia/Tokyo')).toBe('2030-01-31');
  });
});

describe('due filters and due_state', () => {
  it('keeps overdue before today, today alone, and a week of seven calendar days across a DST change', () => {
    // New York springs forward on 8 March 2026: the week from the 7th still ends on the 13th.
    const saturday = new Date('2026-03-07T15:00:00Z');
    expect(dueRange('overdue', saturday, 'America/New_York')).toEqual({ before: '2026-03-07' });
    expect(dueRange('today', saturday, 'America/New_York')).toEqual({ from: '2026-03-07', to: '2026-03-07' });
    expect(dueRange('week', saturday, 'America/New_York')).toEqual({ from: '2026-03-07', to: '2026-03-13' });
  });

  it('says overdue, today, week, later or none exactly as the filters choose', () => {
    const cal = dueCalendar(NOW, 'Asia/Tokyo');
    expect(cal).toEqual({ today: '2026-03-15', weekEnd: '2026-03-21' });
    expect(dueState('2026-03-14', false, cal)).toBe('overdue');
    expect(dueState('2026-03-14', true, cal)).toBe('none');
    expect(dueState('2026-03-15', false, cal)).toBe('today');
    expect(dueState('2026-03-15', true, cal)).toBe('today');
    expect(dueState('2026-03-21', false, cal)).toBe('week');
    expect(dueState('2026-03-22', false, cal)).toBe('later');
    expect(dueState(null, false, cal)).toBe('none');
  });

  it('turns the calendar at the zone’s midnight, to the millisecond, though it works one out once a minute', () => {
    // Kathmandu is UTC+05:45: its midnight of 16 March is 18:15 UTC on the 15th.
    const before = new Date('2026-03-15T18:14:59.999Z');
    const at = new Date('2026-03-15T18:15:00.000Z');
    expect(dueCalendar(before, 'Asia/Kathmandu')).toEqual({ today: '2026-03-15', weekEnd: '2026-03-21' });
    expect(dueCalendar(at, 'Asia/Kathmandu')).toEqual({ today: '2026-03-16', weekEnd: '2026-03-22' });
    expect(dueCalendar(before, 'Asia/Kathmandu').today).toBe('2026-03-15');
    // Another zone at the same minute has its own calendar; a clock going back is answered too.
    expect(dueCalendar(at, 'UTC').today).toBe('2026-03-15');
    expect(dueCalendar(new Date('2026-01-01T00:00:00Z'), 'Asia/Kathmandu').today).toBe('2026-01-01');
  });
});
