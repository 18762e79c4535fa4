/**
 * A fresh `Idempotency-Key` for one write the person means once: sent again with a retry of
 * that same write, tack answers it once (a replay, never a second card). Random bytes from
 * `getRandomValues`, which every browser has, in secure contexts or not.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
