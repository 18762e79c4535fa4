import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { envelopeFor, sendError } from './envelope.js';
import { rateLimited, rateLimitHeaders, type RateDecision } from './rate-limit.js';
import { newRequestId } from './request-id.js';

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

/** What a refused request's first bytes say it asked for, when they say it: `GET /v1/me …`. */
function requestLine(raw: unknown): { method: string; url: string } | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const m = /^([A-Z]+) (\S+)/.exec(raw.toString('latin1', 0, Math.min(raw.length, 2048)));
  return m ? { method: m[1]!, url: m[2]! } : undefined;
}

/**
 * Counts a refused request against its address's rate limit when its method and URL are
 * counted (`/v1`, `/mcp`, sign-in posts); undefined when they are not.
 */
export type CountRefused = (method: string, url: string, address: string) => RateDecision | Promise<RateDecision> | undefined;

/**
 * Sockets whose refusal is on its way. While the count waits on Redis, the rest of the
 * request keeps arriving and the parser, already failed, raises the error again for each
 * chunk: only the first is answered.
 */
const refusing = new WeakSet<Socket>();

/**
 * Requests Node's HTTP parser refuses (headers or URL over the size limit, broken framing)
 * never reach Fastify: answer them in the envelope too, then close the connection as Node does.
 * One whose first line names a counted address (the bytes Node read: `err.rawPacket`) is
 * counted per address, like any request before authentication, and its answer carries the
 * RateLimit-* headers every /v1 answer carries; over the limit it is the 429 instead.
 */
export function clientErrors(count: CountRefused) {
  // Fastify types `rawPacket` as a Buffer's JSON form; Node hands the Buffer itself.
  return (err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed || refusing.has(socket)) return;
    refusing.add(socket);
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const line = requestLine(err.rawPacket);
    const address = socket.remoteAddress;
    const decision = line && address !== undefined ? count(line.method, line.url, address) : undefined;
    // A count that fails (it falls back to memory, so it should not) still gets its answer, without the headers.
    if (decision instanceof Promise) decision.then((d) => refuse(socket, status, d), () => refuse(socket, status, undefined));
    else refuse(socket, status, decision);
  };
}

function refuse(socket: Socket, parserStatus: number, decision: RateDecision | undefined): void {
  const refusal = decision && !decision.allowed ? rateLimited(decision) : undefined;
  const status = refusal ? refusal.status : parserStatus;
  const id = newRequestId();
  const body = JSON.stringify(envelopeFor(status, id, refusal?.code, refusal?.userMessage));
  let headers = `Connection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\n`;
  if (decision) for (const [name, value] of rateLimitHeaders(decision)) headers += `${name}: ${value}\r\n`;
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers}\r\n${body}`);
  socket.destroy();
}
