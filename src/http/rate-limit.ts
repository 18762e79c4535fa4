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

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `address`: the route takes no token, and its requests count per client address. */
    rateLimit?: 'address';
  }
}

/**
 * Route config of a route that takes requests without a token (`/p/…`, `/slack/events`,
 * `/signin`, `/github/webhooks`): `app.get(path, { config: PER_ADDRESS }, handler)`. The
 * admission hook (admission.ts) then counts each request per client address against
 * `RATE_LIMIT_PER_MINUTE`, before the route reads a body, queries or logs anything, and
 * answers 429 `rate_limited` with Retry-After past it (shared through Redis when configured).
 */
export const PER_ADDRESS = { rateLimit: 'address' } as const;

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

/**
 * Says that an address is being refused, at most once a minute per address: a flood of
 * refused requests costs no log line each.
 */
export class RefusalLog {
  readonly #logged = new Map<string, number>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  refused(address: string, details: { path: string; limit: number }): void {
    const t = this.now();
    const last = this.#logged.get(address);
    if (last !== undefined && t - last < WINDOW_MS) return;
    if (this.#logged.size >= 10_000) {
      for (const [a, at] of this.#logged) if (t - at >= WINDOW_MS) this.#logged.delete(a);
    }
    this.#logged.set(address, t);
    this.log.warn({ address, path: details.path, limit: details.limit }, 'rate limit reached for requests without a token from this address; refusing them with 429 (logged once a minute per address)');
  }
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

  /** Takes back `weight` counted under `key` (it turned out to be counted elsewhere). */
  forget(key: string, weight: number): void {
    const w = this.#windows.get(key);
    if (w && w.resetAt > this.now()) w.count = Math.max(0, w.count - weight);
  }

  /** Every live window's count, removed from memory: what must be added to another count. */
  take(): CountedWindow[] {
    const t = this.now();
    const live: CountedWindow[] = [];
    for (const [key, w] of this.#windows) if (w.resetAt > t && w.count > 0) live.push({ key, count: w.count, msLeft: w.resetAt - t });
    this.#windows.clear();
    return live;
  }

  /** Puts windows `take` removed back (their counts could not be handed on), adding to any since. */
  restore(windows: readonly CountedWindow[]): void {
    const t = this.now();
    for (const { key, count, msLeft } of windows) {
      const w = this.#windows.get(key);
      if (w && w.resetAt > t) w.count += count;
      else this.#windows.set(key, { count, resetAt: t + msLeft });
    }
  }

  close(): void {
    clearInterval(this.#sweep);
  }
}

/** A key's count in memory and how long its window still runs. */
export interface CountedWindow {
  key: string;
  count: number;
  msLeft: number;
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
 *
 * Every request is counted once in the shared count, outage or not: what memory counted while
 * the circuit was open is added to Redis when it closes (requests served during an outage are
 * not forgotten by the minute's limit), and a count that timed out but reached Redis after
 * all (a stalled server answers it on resuming) is taken back from memory when its answer
 * comes, before that hand-over: commands on the connection are answered in order, and the
 * probe's PING is sent after it.
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
    const hit = (this.redis as unknown as RateHitCommand).tackRateHit(this.#prefix + key, WINDOW_MS, weight);
    try {
      const [count, ttl] = (await this.#withTimeout(hit)) as [number, number];
      return decide(this.limit, count, ttl > 0 ? ttl : WINDOW_MS);
    } catch (err) {
      const decision = this.#open(key, weight, err);
      // Counted in memory now; if Redis counts it after all, memory lets go of it.
      hit.then(
        () => this.#fallback.forget(key, weight),
        () => {},
      );
      return decision;
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
      // Closed before the hand-over: requests from now on count in Redis, none in memory.
      this.#retryAt = null;
      const counted = this.#fallback.take();
      try {
        await this.#handOver(counted);
      } catch (err) {
        this.#fallback.restore(counted);
        throw err;
      }
      this.log.info({ counts_handed_over: counted.length }, 'rate limits are shared through Redis again');
    } catch {
      this.#retryAt = this.#now() + this.#retryAfterMs;
    } finally {
      this.#probing = false;
    }
  }

  /** Adds what memory counted during the outage to the shared counts, in one round trip. */
  async #handOver(counted: readonly CountedWindow[]): Promise<void> {
    if (counted.length === 0) return;
    const pipeline = this.redis.pipeline() as unknown as RateHitPipeline;
    for (const w of counted) pipeline.tackRateHit(this.#prefix + w.key, Math.ceil(w.msLeft), w.count);
    const results = await this.#withTimeout(pipeline.exec());
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('redis did not run the hand-over');
  }

  close(): void {
    this.#fallback.close();
  }
}

interface RateHitCommand {
  tackRateHit(key: string, windowMs: number, weight: number): Promise<unknown>;
}

interface RateHitPipeline {
  tackRateHit(key: string, windowMs: number, weight: number): RateHitPipeline;
  exec(): Promise<[Error | null, unknown][] | null>;
}
