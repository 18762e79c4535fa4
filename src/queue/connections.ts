import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Redis connections for BullMQ, configured as its production guide asks. BullMQ in an ESM
 * process cannot build ioredis clients from options, so it gets ready-made ones.
 *
 * - Both reconnect forever, backing off to 5 s, so jobs resume by themselves when Redis
 *   returns.
 * - A worker's connection never gives up on a command (`maxRetriesPerRequest: null`): its
 *   blocking reads wait out an outage.
 * - A queue's connection (used to upsert the job schedulers) fails at once while Redis is
 *   down (`enableOfflineQueue: false`), so nothing waits on it; the schedulers are upserted
 *   again on every reconnect.
 * - Errors are logged (once per outage), never thrown: without a listener, an ioredis error
 *   would crash the process.
 */

const retryStrategy = (times: number) => Math.min(500 * 2 ** Math.min(times, 4), 5_000);

function watch(redis: Redis, log: Logger, role: string): Redis {
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) log.warn({ err: err.message, redis: role }, 'jobs: Redis connection error; retrying');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info({ redis: role }, 'jobs: Redis connection restored');
    down = false;
  });
  return redis;
}

function connection(url: string, log: Logger, role: string, options: RedisOptions): Redis {
  return watch(new Redis(url, { retryStrategy, connectionName: `tack:${role}`, ...options }), log, role);
}

export function workerConnection(url: string, log: Logger): Redis {
  return connection(url, log, 'worker', { maxRetriesPerRequest: null });
}

export function queueConnection(url: string, log: Logger): Redis {
  return connection(url, log, 'queue', { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 5_000 });
}
