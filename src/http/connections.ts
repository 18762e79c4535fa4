import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';

/**
 * What each client connection of the HTTP server is doing: the answers it is waiting for,
 * and since when it has waited for none. Node knows this too, but keeps it to itself.
 */
interface ConnectionState {
  answers: Set<ServerResponse>;
  /** When its last answer finished (or it connected). */
  idleSince: number;
}

export interface ConnectionBounds {
  /** Headers and body of one request must arrive within this; Node answers 408 after (clientErrors). */
  requestTimeoutMs: number;
  /** A connection silent this long is closed, unless a handler is still working on its request. */
  idleTimeoutMs: number;
}

/**
 * Node checks request deadlines on a timer of its own (30 s by default), so a request may
 * overrun its bound by that much: check at a quarter of the bound, at most every 30 s.
 */
export function checkingIntervalMs(requestTimeoutMs: number): number {
  return Math.max(50, Math.min(30_000, Math.floor(requestTimeoutMs / 4)));
}

/** The options Node's server takes at creation for these bounds (Fastify sets the rest). */
export function serverTimeoutOptions(bounds: ConnectionBounds): { requestTimeout: number; headersTimeout: number; connectionsCheckingInterval: number } {
  return {
    requestTimeout: bounds.requestTimeoutMs,
    // Node refuses a headers bound longer than the request's.
    headersTimeout: Math.min(60_000, bounds.requestTimeoutMs),
    connectionsCheckingInterval: checkingIntervalMs(bounds.requestTimeoutMs),
  };
}

/**
 * Follows every connection of `server`:
 *
 * - Idle bound (Fastify's `connectionTimeout`, the socket's inactivity timeout): Node would
 *   destroy a silent socket whatever it is doing, so a slow handler (a job run on request)
 *   would lose its answer. Here a silent socket is closed unless a handler is still working on
 *   a request it received whole and has not begun to answer; a body that stops arriving, a
 *   client that stops reading its answer, or a connection that never sends anything is closed.
 * - Draining: `closeIdle(graceMs)` closes only connections idle for `graceMs`, so a client
 *   that sends its next request on a kept-alive connection just as the drain starts gets an
 *   answer (503 with `Connection: close`) rather than a reset.
 */
export class ConnectionTracker {
  readonly #connections = new Map<Socket, ConnectionState>();

  constructor(
    server: Server,
    private readonly now: () => number = Date.now,
  ) {
    // HTTPS hands the HTTP layer the TLS socket (`secureConnection`), not the TCP one.
    const event = server instanceof TlsServer ? 'secureConnection' : 'connection';
    server.on(event, (socket: Socket) => {
      this.#connections.set(socket, { answers: new Set(), idleSince: this.now() });
      socket.once('close', () => this.#connections.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const state = this.#connections.get(request.socket);
      if (!state) return;
      state.answers.add(response);
      response.once('close', () => {
        state.answers.delete(response);
        if (state.answers.size === 0) state.idleSince = this.now();
      });
    });
    // With a listener here Node leaves the decision to us (see socketOnTimeout in Node's http server).
    server.on('timeout', (socket: Socket) => {
      if (!this.handlerWorking(socket)) socket.destroy();
    });
  }

  /** Whether a handler holds a whole request of `socket` and has not started its answer. */
  handlerWorking(socket: Socket): boolean {
    const state = this.#connections.get(socket);
    if (!state) return false;
    for (const response of state.answers) if (response.req.complete && !response.headersSent) return true;
    return false;
  }

  /** How many requests of `socket` are being answered (a pipelined one counts too). */
  answering(socket: Socket): number {
    return this.#connections.get(socket)?.answers.size ?? 0;
  }

  /** When the drain began (`startDraining`); connections idle before then get the whole grace from it. */
  #drainingSince: number | undefined;

  startDraining(): void {
    this.#drainingSince ??= this.now();
  }

  /**
   * Closes the connections that have waited for no answer for at least `graceMs`, counted
   * from the drain's start at the earliest: one idle for an hour may be just sending its next request.
   */
  closeIdle(graceMs: number): void {
    const t = this.now();
    const from = this.#drainingSince ?? 0;
    for (const [socket, state] of this.#connections) {
      if (state.answers.size === 0 && t - Math.max(state.idleSince, from) >= graceMs) socket.destroy();
    }
  }
}
