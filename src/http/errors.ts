import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { envelopeFor, PARAM_TOO_LONG, sendError } from './envelope.js';
import { routeMethods } from './route-methods.js';

export interface ErrorsOptions {
  /** Paths that answer another method with 405 and `Allow` (the API's own, health checks); the rest answer 404. */
  answers405: (url: string) => boolean;
}

/**
 * Every answer names its request (`X-Request-Id`), and every error is the one envelope
 * (envelope.ts): thrown errors through `sendError`, a path nothing serves as 404, a known
 * path asked with another method as 405 with `Allow`. Registered first, on the root (its
 * hooks and handlers reach every face), before any route: it learns the routes as they come.
 */
async function errors(app: FastifyInstance, options: ErrorsOptions): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));
  const methodsFor = routeMethods(app, options.answers405);
  app.setNotFoundHandler((request, reply) => {
    const allowed = methodsFor(request.url);
    if (allowed.includes(request.method)) {
      // A route for this method and path shape exists, so the router refused a parameter over
      // maxParamLength: nothing has an identifier that long. (Not 405: the method is allowed.)
      return reply.code(404).send(envelopeFor(404, request.id, 'not_found', PARAM_TOO_LONG));
    }
    if (allowed.length > 0) {
      return reply.code(405).header('Allow', allowed.join(', ')).send(envelopeFor(405, request.id));
    }
    return reply.code(404).send(envelopeFor(404, request.id));
  });
}

export const errorsPlugin = fp(errors, { name: 'tack-errors', fastify: '5.x' });
