import { expect, it } from 'vitest';
import { toIso } from '../src/domain/time.js';

it('formats Postgres UTC timestamp text as ISO 8601 with milliseconds, as Date would', () => {
  for (const ts of ['2026-11-21 09:00:00+00', '2026-11-21 09:00:00.1+00', '2026-11-21 09:00:00.123456+00', '1999-12-31 23:59:59.999999+00']) {
    const viaDate = new Date(ts.replace(' ', 'T').replace('+00', '+00:00')).toISOString();
    expect(toIso(ts)).toBe(viaDate);
  }
  expect(toIso('2026-11-21 10:00:00.5+01')).toBe('2026-11-21T09:00:00.500Z');
  expect(toIso(null)).toBeNull();
});
