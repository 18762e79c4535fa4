import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { throttle } from './throttle.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it('calls at once when quiet, and once at the end of the window for any number of calls inside it', () => {
  const calls: number[] = [];
  const t = throttle(() => calls.push(Date.now()), 25, () => Date.now());
  const start = Date.now();
  t();
  expect(calls).toEqual([start]);
  for (let i = 0; i < 100; i++) t();
  expect(calls).toHaveLength(1);
  vi.advanceTimersByTime(24);
  expect(calls).toHaveLength(1);
  vi.advanceTimersByTime(1);
  expect(calls).toEqual([start, start + 25]);
  // Quiet for longer than the window: the next call is at once again.
  vi.advanceTimersByTime(100);
  t();
  expect(calls).toEqual([start, start + 25, start + 125]);
});

it('drops the waiting call when cancelled', () => {
  let n = 0;
  const t = throttle(() => void n++, 25, () => Date.now());
  t();
  t();
  t.cancel();
  vi.advanceTimersByTime(100);
  expect(n).toBe(1);
});
