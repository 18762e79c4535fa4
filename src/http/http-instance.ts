import type http from 'node:http';
import type https from 'node:https';
import Fastify, { LogController, type FastifyHttpOptions, type FastifyHttpsOptions, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { clientErrors, frameworkErrors } from './client-errors.js';
import { ConnectionTracker, serverTimeoutOptions } from './connections.js';
import { MAX_PARAM_LENGTH } from './envelope.js';
import { registerJsonParser } from './json-parser.js';
import type { RequestCounter } from './request-counter.js';
import { newRequestId } from './request-id.js';
import { lazyChildLogger } from './request-logger.js';

// JSON bodies may carry a snippet of up to 1 MiB, escaped; the domain enforces the real limits.
const BODY_LIMIT = 4 * 1024 * 1024;

export interface HttpInstanceOptions {
  config: Pick<Config, 'http'>;
  log: Logger;
  https?: { cert: Buffer; key: Buffer } | undefined;
  counter: RequestCounter;
  /** The URLs whose requests are counted before authentication (by address) when refused before routing. */
  counted: (url: string) => boolean;
}

export interface HttpInstance {
  app: FastifyInstance;
  /** What every connection is doing: for the idle bound, and for draining (draining.ts). */
  connections: ConnectionTracker;
}

/**
 * The Fastify instance, before any plugin: request ids, the JSON body parser, the body,
 * request and idle bounds, and the envelope (with the rate limit counted) for requests the
 * router or Node's parser refuse before any hook runs.
 */
export function createHttpInstance(options: HttpInstanceOptions): HttpInstance {
  const { counter, counted } = options;
  const { requestTimeoutMs, idleTimeoutMs } = options.config.http;
  const nodeTimeouts = serverTimeoutOptions({ requestTimeoutMs, idleTimeoutMs });
  const fastifyOptions: FastifyHttpOptions<http.Server> = {
    loggerInstance: options.log,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: BODY_LIMIT,
    // A body cannot be held open: the whole request within requestTimeout (408 after), and a
    // silent connection closed after idleTimeout unless its handler is working (ConnectionTracker).
    requestTimeout: requestTimeoutMs,
    connectionTimeout: idleTimeoutMs,
    http: nodeTimeouts,
    genReqId: newRequestId,
    // Before any hook, so before authentication: counted per address, like a request without a token.
    frameworkErrors: frameworkErrors(async (request, reply) => (counted(request.url) ? counter.countAddress(request, reply) : undefined)),
    clientErrorHandler: clientErrors((_method, url, address) => (counted(url) ? counter.hitAddress(address) : undefined)),
    requestIdHeader: false,
    // Requests that arrive while draining get the envelope from draining.ts's hook instead.
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
  };
  // Fastify's HTTPS overload returns an instance typed for https.Server; the app itself does
  // not care which server carries it.
  const app = (
    options.https ? Fastify({ ...fastifyOptions, http: undefined, https: { ...options.https, ...nodeTimeouts } } as FastifyHttpsOptions<https.Server>) : Fastify(fastifyOptions)
  ) as unknown as FastifyInstance;
  registerJsonParser(app);
  app.addHook('onClose', async () => counter.close());
  return { app, connections: new ConnectionTracker(app.server) };
}
