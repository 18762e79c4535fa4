import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  allowed: boolean;
}

export interface RateLimiter {
  /**
   * Counts one request (or `weight`: a batch of MCP messages counts each); in memory the
   * decision comes at once, without a promise (the hot path).
   */
  hit(key: string, weight?: number): RateDecision | Promise<RateDecision>;
  close(): void;
}

const WINDOW_MS = 60_000;

/** The headers that say a decision: RateLimit-* on every counted answer, and Retry-After past the limit. */
export function rateLimitHeaders(decision: RateDecision): [string, number][] {
  const headers: [string, number][] = [
    ['RateLimit-Limit', decision.limit],
    ['RateLimit-Remaining', decision.remaining],
    ['RateLimit-Reset', decision.reset],
  ];
  if (!decision.allowed) headers.push(['Retry-After', decision.reset]);
  return headers;
}

/** The refusal of a request over its limit (429 `rate_limited`), sent with Retry-After. */
export function rateLimited(decision: RateDecision): AppError {
  return new AppError('rate_limited', 429, `Too many requests; retry in ${decision.reset} s.`);
}

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

  hit(key: string, weight = 1): RateDecision {
    const t = this.now();
    let w = this.#windows.get(key);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: t + WINDOW_MS };
      this.#windows.set(key, w);
    }
    w.count += weight;
    return decide(this.limit, w.count, w.resetAt - t);
  }

  close(): void {
    clearInterval(this.#sweep);
  }
}

const SCRIPT = `
local c = redis.call('INCRBY', KEYS[1], ARGV[2])
if c == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
return {c, t}`;

export interface RedisRateLimiterOptions {
  /** Key prefix in Redis. */
  prefix?: string;
  /** How long one count may wait for Redis before the request is counted in memory instead. */
  timeoutMs?: number;
  /** How long the circuit stays open (memory only) before Redis is tried again in the background. */
  retryAfterMs?: number;
  now?: () => number;
}

/**
 * One count shared by every process through Redis, behind a circuit breaker. When Redis
 * refuses, errs, or takes longer than `timeoutMs` (a stalled server whose socket still says
 * "ready"), the circuit opens: requests are counted in this process's memory, at memory's
 * speed, and only a single background probe per `retryAfterMs` asks Redis again; its first
 * answer closes the circuit. So a hung Redis costs one request `timeoutMs`, not every request
 * a second, and the outage is logged once.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #fallback: MemoryRateLimiter;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #now: () => number;
  /** Open while non-null: the time after which a background probe may try Redis again. */
  #retryAt: number | null = null;
  #probing = false;

  constructor(
    private readonly redis: Redis,
    readonly limit: number,
    private readonly log: Logger,
    options: RedisRateLimiterOptions = {},
  ) {
    this.#prefix = options.prefix ?? 'tack:rl:';
    this.#timeoutMs = options.timeoutMs ?? 250;
    this.#retryAfterMs = options.retryAfterMs ?? 2_000;
    this.#now = options.now ?? Date.now;
    this.#fallback = new MemoryRateLimiter(limit, this.#now);
    redis.defineCommand('tackRateHit', { numberOfKeys: 1, lua: SCRIPT });
  }

  /** Whether counts go to memory now (Redis refused or stalled, not yet answered a probe). */
  get degraded(): boolean {
    return this.#retryAt !== null;
  }

  async hit(key: string, weight = 1): Promise<RateDecision> {
    if (this.#retryAt !== null) {
      if (!this.#probing && this.#now() >= this.#retryAt) void this.#probe();
      return this.#fallback.hit(key, weight);
    }
    if (this.redis.status !== 'ready') return this.#open(key, weight, new Error(`redis ${this.redis.status}`));
    try {
      const hit = (this.redis as unknown as RateHitCommand).tackRateHit(this.#prefix + key, WINDOW_MS, weight);
      const [count, ttl] = (await this.#withTimeout(hit)) as [number, number];
      return decide(this.limit, count, ttl > 0 ? ttl : WINDOW_MS);
    } catch (err) {
      return this.#open(key, weight, err);
    }
  }

  #withTimeout<T>(command: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`redis did not answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    // The command may still settle after the timeout; its late answer is dropped.
    command.catch(() => {});
    return Promise.race([command, late]).finally(() => clearTimeout(timer));
  }

  #open(key: string, weight: number, err: unknown): RateDecision {
    if (this.#retryAt === null) {
      this.log.warn({ err: (err as Error).message }, "Redis is unavailable: rate limits fall back to this process's memory");
    }
    this.#retryAt = this.#now() + this.#retryAfterMs;
    return this.#fallback.hit(key, weight);
  }

  /** One PING in the background; an answer in time closes the circuit, anything else keeps it open. */
  async #probe(): Promise<void> {
    this.#probing = true;
    try {
      if (this.redis.status !== 'ready') throw new Error(`redis ${this.redis.status}`);
      await this.#withTimeout(this.redis.ping());
      this.#retryAt = null;
      this.log.info('rate limits are shared through Redis again');
    } catch {
      this.#retryAt = this.#now() + this.#retryAfterMs;
    } finally {
      this.#probing = false;
    }
  }

  close(): void {
    this.#fallback.close();
  }
}

interface RateHitCommand {
  tackRateHit(key: string, windowMs: number, weight: number): Promise<unknown>;
}
