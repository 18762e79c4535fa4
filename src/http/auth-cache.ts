import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { authenticateToken, unauthorized, type Authenticated } from '../domain/authenticate.js';
import { hashToken } from '../domain/token-format.js';

const MAX_ENTRIES = 10_000;
/** Even without an invalidation, a cached principal is re-read after this long. */
const TTL_MS = 60_000;

/**
 * Caches token → principal so a request costs no look-up of its token. Any commit that
 * changes tokens or members clears it (`clear`), here and, through Postgres NOTIFY, in every
 * other process, so a revoked token fails on its next request.
 */
export class AuthCache {
  readonly #entries = new Map<string, { auth: Authenticated; at: number }>();

  constructor(private readonly db: Kysely<Database>, private readonly now: () => number = Date.now) {}

  async authenticate(token: string): Promise<Authenticated> {
    const key = hashToken(token);
    const t = this.now();
    const hit = this.#entries.get(key);
    if (hit && t - hit.at < TTL_MS) {
      if (hit.auth.expiresAt !== null && hit.auth.expiresAt <= t) throw unauthorized();
      return hit.auth;
    }
    const generation = this.#generation;
    const auth = await authenticateToken(this.db, token, new Date(t));
    // A clear() that ran while we were reading may have been about this very token.
    if (generation === this.#generation) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(key, { auth, at: t });
    }
    return auth;
  }

  #generation = 0;

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
