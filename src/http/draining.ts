import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../domain/errors.js';
import type { ConnectionTracker } from './connections.js';

/**
 * While draining, a connection is closed once it has waited this long for no answer: a
 * request its client sent as the drain began is still answered (503, `Connection: close`)
 * rather than reset.
 */
export const DRAIN_GRACE_MS = 1_000;

export interface DrainingOptions {
  connections: ConnectionTracker;
}

/**
 * A graceful close: once `app.close()` begins, requests in flight are answered, a new one
 * is refused with 503 `shutting_down` (`Retry-After: 1`, `Connection: close`), and each
 * connection closes after the last answer it owes or after the grace when idle. On the root,
 * before the admission hook: a request that comes while draining is not counted.
 */
async function draining(app: FastifyInstance, { connections }: DrainingOptions): Promise<void> {
  let closing = false;
  let closingIdle: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    // Node closes every idle connection as the server closes, and a client may have just sent
    // its next request on one (a reset, where the drain promises a 503). Closed here only
    // once idle for the grace, as they come: a connection whose in-flight answer goes out
    // later is kept alive by its client and would hold the process open until the shutdown's
    // force timer (exit 1 after 25 s).
    connections.startDraining();
    app.server.closeIdleConnections = () => connections.closeIdle(DRAIN_GRACE_MS);
    closingIdle = setInterval(() => connections.closeIdle(DRAIN_GRACE_MS), 100);
    closingIdle.unref();
  });
  app.addHook('onClose', async () => clearInterval(closingIdle));
  // While draining, an answer that is the last its connection owes closes that connection
  // after it (a request pipelined behind it is still answered, its 503 closing it).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing && connections.answering(request.raw.socket) <= 1) reply.header('Connection', 'close');
    done(null, payload);
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    reply.header('Connection', 'close').header('Retry-After', '1');
    done(new AppError('shutting_down', 503, 'The server is shutting down; retry shortly.'));
  });
}

export const drainingPlugin = fp(draining, { name: 'tack-draining', fastify: '5.x' });
