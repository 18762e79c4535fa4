import type { Db } from '../domain/context.js';
import type { AppError } from '../domain/errors.js';
import { authenticateToken, unauthorized, type Authenticated } from '../domain/authenticate.js';
import { authenticateSession, sessionEnded } from '../domain/authenticate-session.js';
import { hashToken } from '../domain/token-format.js';

const MAX_ENTRIES = 10_000;
/** Even without an invalidation, a cached principal is re-read after this long. */
const TTL_MS = 60_000;

/**
 * Caches token → principal, and session cookie → principal, so a request costs no look-up
 * of its credential. Any commit that changes tokens, members or sessions clears it
 * (`clear`), here and, through Postgres NOTIFY, in every other process, so a revoked token
 * or an ended session fails on its next request.
 *
 * That holds only while this process hears those notifications (see `hearing`). While it
 * does not, it caches nothing: the simplest bound that is correct, each request reading its
 * credential as on a cold cache, for as long as the listener takes to listen again.
 */
export class AuthCache {
  readonly #entries = new Map<string, { auth: Authenticated; at: number }>();
  // False while other processes' changes cannot reach this one: from start-up until the
  // listener's first LISTEN answered, and from a lost listening connection until a new one
  // listens. True without a listener (PGlite: one process owns the data).
  #hearing = true;

  constructor(private readonly db: Db, private readonly now: () => number = Date.now) {}

  authenticate(token: string): Promise<Authenticated> {
    return this.#cached(`t:${hashToken(token)}`, (at) => authenticateToken(this.db, token, at), unauthorized);
  }

  /**
   * The token's principal when this cache holds it, at once and without a promise (the hot
   * path of every request); undefined when it must be read (`authenticate`). Throws 401 for
   * a cached token that has expired.
   */
  cachedToken(token: string): Authenticated | undefined {
    if (!this.#hearing) return undefined;
    return this.#hit(`t:${hashToken(token)}`, this.now(), unauthorized);
  }

  /** The principal of a web session's cookie value. */
  authenticateSession(secret: string): Promise<Authenticated> {
    return this.#cached(`s:${hashToken(secret)}`, (at) => authenticateSession(this.db, secret, at), sessionEnded);
  }

  #hit(key: string, t: number, expired: () => AppError): Authenticated | undefined {
    const hit = this.#entries.get(key);
    if (!hit || t - hit.at >= TTL_MS) return undefined;
    if (hit.auth.expiresAt !== null && hit.auth.expiresAt <= t) throw expired();
    return hit.auth;
  }

  async #cached(key: string, load: (at: Date) => Promise<Authenticated>, expired: () => AppError): Promise<Authenticated> {
    const t = this.now();
    const hit = this.#hit(key, t, expired);
    if (hit) return hit;
    const generation = this.#generation;
    const auth = await load(new Date(t));
    // A clear() that ran while we were reading may have been about this very credential.
    // Nothing is cached while deaf: a revocation elsewhere could not clear it.
    if (generation === this.#generation && this.#hearing) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(key, { auth, at: t });
    }
    return auth;
  }

  #generation = 0;
  readonly #listeners = new Set<() => void>();

  /**
   * Calls `listener` after every clear from now on (open event streams read their caller
   * again); returns the unsubscribe.
   */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
    for (const listener of this.#listeners) listener();
  }

  /**
   * Whether changes made in other processes reach this cache from now on (set by
   * `authNotifications`). Either way it forgets what it holds: going deaf, anything may have
   * changed unheard; hearing again, a credential read while deaf may have changed before
   * the LISTEN, and a read still running is not stored.
   */
  hearing(on: boolean): void {
    this.#hearing = on;
    this.clear();
  }
}
