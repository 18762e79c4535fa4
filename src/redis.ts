import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The Redis client for rate limits and readiness. Commands fail at once while Redis is down
 * (no offline queue), so callers fall back instead of waiting; it reconnects by itself.
 * No command timeout: callers bound their own wait, and a command's promise must tell
 * whether Redis ran it (a stalled server runs what it was sent when it resumes, and the rate
 * limiter counts a request once only by knowing that).
 */
export function connectRedis(url: string, log: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) log.warn({ err: err.message }, 'Redis connection error');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info('Redis connection restored');
    down = false;
  });
  return redis;
}
