import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import type { Db } from '../domain/context.js';
import { envelopeFor } from './envelope.js';

const PING_TIMEOUT_MS = 2_000;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer`)), PING_TIMEOUT_MS).unref()),
  ]);
}

/**
 * `/healthz`: the process serves. `/readyz`: 200 while the database answers, 503 when it does
 * not. A configured Redis that does not answer makes it `degraded` with 200: `/v1` still
 * serves (rate limits count in memory), so a load balancer must keep sending traffic.
 */
export interface HealthOptions {
  db: Db;
  redis?: Redis | undefined;
}

export async function health(app: FastifyInstance, deps: HealthOptions): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));
  // One database ping at a time: while Postgres stalls, a ping waits out the statement bound,
  // and probes arriving meanwhile share it instead of taking a pool connection each.
  let pinging: Promise<unknown> | undefined;
  const ping = () =>
    (pinging ??= sql`select 1`.execute(deps.db).finally(() => {
      pinging = undefined;
    }));
  app.get('/readyz', async (request, reply) => {
    const checks: Record<string, 'ok' | 'down'> = {};
    try {
      await withTimeout(ping(), 'database');
      checks.database = 'ok';
    } catch {
      checks.database = 'down';
    }
    if (deps.redis) {
      try {
        if (deps.redis.status !== 'ready') throw new Error('redis not ready');
        await withTimeout(deps.redis.ping(), 'redis');
        checks.redis = 'ok';
      } catch {
        checks.redis = 'down';
      }
    }
    if (checks.database === 'ok') return { status: checks.redis === 'down' ? 'degraded' : 'ready', checks };
    return reply.code(503).send({ ...envelopeFor(503, request.id, 'not_ready', 'A dependency is not answering.'), checks });
  });
}
