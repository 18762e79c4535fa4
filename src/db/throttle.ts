/** A function called at once, then at most once per `everyMs` while calls keep coming. */
export interface Throttled {
  (): void;
  /** Drops a call waiting for the end of the window. */
  cancel(): void;
}

/**
 * Calls `fn` at once when nothing called it in the last `everyMs`; a call inside the window
 * is put off to the window's end, and any number of them make that one call. A quiet
 * system pays no delay; a busy one calls `fn` at most 1000 / `everyMs` times a second.
 */
export function throttle(fn: () => void, everyMs: number, now: () => number = () => performance.now()): Throttled {
  let last = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    timer = undefined;
    last = now();
    fn();
  };
  const call = (() => {
    if (timer) return;
    const wait = last + everyMs - now();
    if (wait <= 0) return fire();
    timer = setTimeout(fire, wait);
    timer.unref();
  }) as Throttled;
  call.cancel = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return call;
}
