import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Principal } from '../domain/context.js';
import { MemoryRateLimiter, RedisRateLimiter, RefusalLog, rateLimited, rateLimitHeaders, type RateDecision, type RateLimiter } from './rate-limit.js';
import { requestPath } from './request-path.js';

export interface RequestCounterOptions {
  /** RATE_LIMIT_PER_MINUTE. */
  perMinute: number;
  /** Shared by every process when set; in memory otherwise. */
  redis?: Redis | undefined;
  log: Logger;
  /** Date.now unless a clock is injected. */
  nowMs: () => number;
}

/**
 * Counts requests against RATE_LIMIT_PER_MINUTE, per token or session once the request is
 * admitted, else per client address, and says so in the RateLimit-* headers; past the limit
 * it throws 429 `rate_limited`. Made before the Fastify instance: requests the router or
 * Node's parser refuse are counted too (http-instance.ts). Each count returns no promise when
 * the limiter answers at once (in memory): undefined then means counted and allowed.
 */
export class RequestCounter {
  readonly #limiter: RateLimiter;
  readonly #refusals: RefusalLog;
  readonly #perMinute: number;

  constructor(options: RequestCounterOptions) {
    this.#perMinute = options.perMinute;
    this.#limiter = options.redis ? new RedisRateLimiter(options.redis, options.perMinute, options.log) : new MemoryRateLimiter(options.perMinute, options.nowMs);
    this.#refusals = new RefusalLog(options.log, options.nowMs);
  }

  /** Counts a request (or `weight` of them) against `key`. */
  count(reply: FastifyReply, key: string, weight?: number, onRefused?: () => void): Promise<void> | undefined {
    const decision = this.#limiter.hit(key, weight);
    if (decision instanceof Promise) return decision.then((d) => applyDecision(reply, d, onRefused));
    applyDecision(reply, decision, onRefused);
    return undefined;
  }

  /** Counts `weight` requests of the token (or session) `principal` holds. */
  countPrincipal(reply: FastifyReply, principal: Principal, weight?: number): Promise<void> | undefined {
    return this.count(reply, tokenKey(principal), weight);
  }

  /** Counts a request without a (valid) token by its client address; a refusal is logged once a minute per address. */
  countAddress(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
    return this.count(reply, `ip:${request.ip}`, undefined, () => this.#refusals.refused(request.ip, { path: requestPath(request.url), limit: this.#perMinute }));
  }

  /** Counts a request refused before Fastify had one (clientErrors): the decision alone, to be sent by hand. */
  hitAddress(address: string): RateDecision | Promise<RateDecision> {
    return this.#limiter.hit(`ip:${address}`);
  }

  close(): void {
    this.#limiter.close();
  }
}

/** What a token's requests are counted under (with Redis, by every process). */
function tokenKey(principal: Principal): string {
  return `tok:${principal.tokenId}`;
}

function applyDecision(reply: FastifyReply, decision: RateDecision, onRefused?: () => void): void {
  for (const [name, value] of rateLimitHeaders(decision)) reply.header(name, value);
  if (decision.allowed) return;
  onRefused?.();
  throw rateLimited(decision);
}
