import { confirmCaller } from '../domain/confirm-caller.js';
import type { Db, Principal } from '../domain/context.js';

/** What a stream learns of its caller: the role and scopes it acts with now. */
export type CallerNow = Pick<Principal, 'role' | 'scopes'>;

/**
 * The callers of a process's open event streams, read again whenever tokens, members or
 * sessions changed (the auth cache's clear: a commit here, or the NOTIFY of another process
 * through the shared listener), so a stream whose token was revoked, whose session ended
 * (sign-out) or whose member was removed ends, and one whose member's role changed sees what
 * the new role may. Streams of one credential share one read per change.
 */
export class StreamCallers {
  readonly #watchers = new Set<() => void>();
  // The reads started since the last change, by credential: a read begun before a change may not see it.
  readonly #reads = new Map<string, Promise<CallerNow>>();

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
  ) {}

  /** Calls `recheck` after every change from now on; returns the unsubscribe. */
  watch(recheck: () => void): () => void {
    this.#watchers.add(recheck);
    return () => this.#watchers.delete(recheck);
  }

  get watching(): number {
    return this.#watchers.size;
  }

  /** Tokens, members or sessions changed (committed): every stream reads its caller again. */
  changed(): void {
    this.#reads.clear();
    for (const recheck of [...this.#watchers]) recheck();
  }

  /** The caller as the database says it is now; rejects when its credential no longer holds (or cannot be read). */
  confirm(principal: Principal): Promise<CallerNow> {
    const key = principal.sessionId !== undefined ? `s:${principal.sessionId}` : `t:${principal.tokenId ?? principal.memberId}`;
    let read = this.#reads.get(key);
    if (!read) {
      read = confirmCaller(this.db, principal, this.clock()).then((p) => ({ role: p.role, scopes: p.scopes }));
      this.#reads.set(key, read);
      const done = () => {
        if (this.#reads.get(key) === read) this.#reads.delete(key);
      };
      read.then(done, done);
    }
    return read;
  }
}
