import { randomFillSync } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { envelopeFor, sendError } from './envelope.js';

const ID_BYTES = 12;
const IDS_PER_FILL = 512;
const pool = Buffer.alloc(ID_BYTES * IDS_PER_FILL);
let next = IDS_PER_FILL;

/**
 * `req_` + 24 hex characters; also used for answers written before Fastify has a request.
 * Random bytes are drawn 512 ids at a time: one `randomBytes` call per request cost more
 * than the rest of the request id's work (profiled under load).
 */
export function newRequestId(): string {
  if (next === IDS_PER_FILL) {
    randomFillSync(pool);
    next = 0;
  }
  const start = ID_BYTES * next++;
  return `req_${pool.toString('hex', start, start + ID_BYTES)}`;
}

/**
 * Errors Fastify's router raises before any hook runs (a URL with bad percent-encoding, a
 * parameter over the length limit). Without this they get Fastify's own body, which echoes
 * the URL and has no request id. `count` counts the request against its rate limit (and
 * sets the RateLimit-* headers that every /v1 answer carries) as the hooks would have; a
 * request over the limit is answered with that refusal instead.
 */
export function frameworkErrors(count: (request: FastifyRequest, reply: FastifyReply) => Promise<void>) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('X-Request-Id', request.id);
    count(request, reply).then(
      () => sendError(err, request, reply),
      (refusal: unknown) => sendError(refusal, request, reply),
    );
  };
}

/**
 * Requests Node's HTTP parser refuses (headers or URL over the size limit, broken framing)
 * never reach Fastify: answer them in the envelope too, then close the connection as Node does.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const id = newRequestId();
  const body = JSON.stringify(envelopeFor(status, id));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
