/**
 * Where to come back to after signing in. A sign-in link is often opened in a new tab (from
 * Slack or a terminal), so the place is kept in localStorage for the link's lifetime.
 */
const KEY = 'tack.return-to';
const LIFETIME_MS = 15 * 60 * 1000;

export function rememberReturn(path: string): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ path, at: Date.now() }));
  } catch {
    // Storage may be disabled; the person lands on / instead.
  }
}

/** The remembered same-origin path, once; undefined when none or too old. */
export function takeReturn(): string | undefined {
  try {
    const raw = localStorage.getItem(KEY);
    localStorage.removeItem(KEY);
    if (!raw) return undefined;
    const v = JSON.parse(raw) as { path?: unknown; at?: unknown };
    if (typeof v.path !== 'string' || typeof v.at !== 'number' || Date.now() - v.at > LIFETIME_MS) return undefined;
    return isLocalPath(v.path) ? v.path : undefined;
  } catch {
    return undefined;
  }
}

/** A path on this origin only: `/x`, never `//host` or `/\host`. */
export function isLocalPath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}

export function goToSignIn(): void {
  const here = `${location.pathname}${location.search}`;
  rememberReturn(here);
  location.assign(`/signin?next=${encodeURIComponent(here)}`);
}
