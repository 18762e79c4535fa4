import { useSyncExternalStore } from 'react';

/**
 * Whether tack's /v1 can be reached, as the last calls found: a network error, or a 502/504
 * (a proxy with no tack behind it) or a 503 from a server shutting down, says it cannot. While
 * it cannot, /v1 is asked again every few seconds (and when the browser says it is online
 * again); the first answer says it is back. The offline banner and the error pages listen.
 */

let offline = false;
let timer: ReturnType<typeof setTimeout> | undefined;
let delay = 1000;
const MAX_DELAY = 5000;
const listeners = new Set<() => void>();

const emit = () => {
  for (const l of listeners) l();
};

export function isOffline(): boolean {
  return offline;
}

export function subscribeConnectivity(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** True while tack cannot be reached. */
export function useOffline(): boolean {
  return useSyncExternalStore(subscribeConnectivity, isOffline);
}

export function reportUnreachable(): void {
  if (offline) return;
  offline = true;
  delay = 1000;
  emit();
  schedule();
}

export function reportReachable(): void {
  if (!offline) return;
  offline = false;
  clearTimeout(timer);
  timer = undefined;
  emit();
}

/** Does this answer say tack is not there (rather than tack refusing or failing one call)? */
export async function answerMeansUnreachable(response: Response): Promise<boolean> {
  if (response.status === 502 || response.status === 504) return true;
  if (response.status !== 503) return false;
  try {
    const body = (await response.clone().json()) as { code?: unknown };
    return body.code === 'shutting_down';
  } catch {
    return true; // not tack's envelope: something in front of it answered
  }
}

function schedule(): void {
  clearTimeout(timer);
  timer = setTimeout(() => void probe(), delay);
  delay = Math.min(delay * 2, MAX_DELAY);
}

async function probe(): Promise<void> {
  try {
    const response = await fetch('/v1/me', { credentials: 'same-origin', cache: 'no-store' });
    if (!(await answerMeansUnreachable(response))) {
      reportReachable();
      return;
    }
  } catch {
    // still unreachable
  }
  if (offline) schedule();
}

if (typeof window !== 'undefined') {
  window.addEventListener('online', () => {
    if (offline) {
      delay = 1000;
      void probe();
    }
  });
}
