import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  allowed: boolean;
}

export interface RateLimiter {
  hit(key: string): Promise<RateDecision>;
  close(): void;
}

const WINDOW_MS = 60_000;

function decide(limit: number, count: number, msLeft: number): RateDecision {
  return {
    limit,
    remaining: Math.max(0, limit - count),
    reset: Math.max(1, Math.ceil(msLeft / 1000)),
    allowed: count <= limit,
  };
}

/** A fixed one-minute window per key, in this process. */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();
  readonly #sweep: NodeJS.Timeout;

  constructor(readonly limit: number, private readonly now: () => number = Date.now) {
    this.#sweep = setInterval(() => {
      const t = this.now();
      for (const [key, w] of this.#windows) if (w.resetAt <= t) this.#windows.delete(key);
    }, WINDOW_MS);
    this.#sweep.unref();
  }

  hitSync(key: string): RateDecision {
    const t = this.now();
    let w = this.#windows.get(key);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: t + WINDOW_MS };
      this.#windows.set(key, w);
    }
    w.count++;
    return decide(this.limit, w.count, w.resetAt - t);
  }

  async hit(key: string): Promise<RateDecision> {
    return this.hitSync(key);
  }

  close(): void {
    clearInterval(this.#sweep);
  }
}

const SCRIPT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
return {c, t}`;

/**
 * One count shared by every process through Redis. When Redis does not answer, the count
 * falls back to this process's memory (and says so in the log once per outage), so a Redis
 * outage never takes the API down.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #fallback: MemoryRateLimiter;
  #degraded = false;

  constructor(
    private readonly redis: Redis,
    readonly limit: number,
    private readonly log: Logger,
    private readonly prefix = 'tack:rl:',
  ) {
    this.#fallback = new MemoryRateLimiter(limit);
    redis.defineCommand('tackRateHit', { numberOfKeys: 1, lua: SCRIPT });
  }

  async hit(key: string): Promise<RateDecision> {
    if (this.redis.status !== 'ready') return this.#degrade(key, new Error(`redis ${this.redis.status}`));
    try {
      const [count, ttl] = (await (this.redis as unknown as RateHitCommand).tackRateHit(this.prefix + key, WINDOW_MS)) as [number, number];
      if (this.#degraded) {
        this.#degraded = false;
        this.log.info('rate limits are shared through Redis again');
      }
      return decide(this.limit, count, ttl > 0 ? ttl : WINDOW_MS);
    } catch (err) {
      return this.#degrade(key, err);
    }
  }

  #degrade(key: string, err: unknown): RateDecision {
    if (!this.#degraded) {
      this.#degraded = true;
      this.log.warn({ err: (err as Error).message }, 'Redis is unavailable: rate limits fall back to this process\'s memory');
    }
    return this.#fallback.hitSync(key);
  }

  close(): void {
    this.#fallback.close();
  }
}

interface RateHitCommand {
  tackRateHit(key: string, windowMs: number): Promise<unknown>;
}
