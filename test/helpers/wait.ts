/**
 * Polls `check` until it returns something truthy (and returns that), or fails after
 * `timeoutMs` saying what it waited for. For conditions on a loaded machine, instead of sleeps.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
