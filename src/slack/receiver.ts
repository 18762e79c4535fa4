import { ErrorCode, type App, type Receiver, type ReceiverEvent } from '@slack/bolt';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { briefError } from '../log-error.js';
import type { SlackBody } from './payload.js';
import { checkSlackHeaders } from './signature.js';

/** How a delivery was answered on its HTTP request. */
export type AckOutcome =
  | { kind: 'ack'; body: unknown }
  /** Processing ended without any listener acknowledging (nothing handles this payload). */
  | { kind: 'unhandled'; error: boolean }
  /** Nobody acknowledged within the deadline: answer empty so Slack does not show a failure. */
  | { kind: 'timeout' };

/**
 * The error a listener threw: Bolt hands its error handler an error without a `code` wrapped
 * in an UnknownError (named plain "Error", the thrown one under `original`), which would hide
 * a TypeError or a connection error behind a generic name.
 */
function unwrapBolt(err: unknown): unknown {
  const e = err as { code?: unknown; original?: unknown } | null;
  return e?.code === ErrorCode.UnknownError && e.original instanceof Error ? e.original : err;
}

/** The refusal of a request that is not Slack's (401, nothing done). */
export function notSignedBySlack(): AppError {
  return new AppError('invalid_slack_signature', 401, 'This request is not signed by Slack, or its timestamp is more than 5 minutes off.');
}

// Slack's `ssl_check` probe comes unsigned: a short form, read to be answered.
const SSL_CHECK_MAX_BYTES = 1024;

function oneHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The route's onRequest hook: a request without Slack's signature headers, or whose timestamp
 * is more than 5 minutes off, is refused before its body is read (the signature over the body
 * is checked after). Only an unsigned short form may go on, as Slack's `ssl_check` does.
 */
export function refuseUnsignedBeforeBody(now: () => Date) {
  return async (request: FastifyRequest): Promise<void> => {
    const problem = checkSlackHeaders({ signature: oneHeader(request, 'x-slack-signature'), timestamp: oneHeader(request, 'x-slack-request-timestamp'), now: now() });
    if (problem === undefined) return;
    if (problem === 'missing_headers' && mayBeSslCheck(request)) return;
    request.log.warn({ problem }, 'Slack request refused');
    throw notSignedBySlack();
  };
}

function mayBeSslCheck(request: FastifyRequest): boolean {
  const type = oneHeader(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  const length = Number(oneHeader(request, 'content-length'));
  return type === 'application/x-www-form-urlencoded' && Number.isInteger(length) && length <= SSL_CHECK_MAX_BYTES;
}

// Slack waits 3 seconds; leave room for the network.
export const ACK_DEADLINE_MS = 2_500;

/**
 * Bolt's receiver interface over our own Fastify route: the route verifies and parses the
 * request, then hands the body to `dispatch`, which resolves as soon as a listener calls
 * `ack()` (the HTTP answer), while the listener's slower work goes on afterwards and is
 * answered through `response_url`. `drain()` waits for that work on shutdown.
 */
export class FastifyReceiver implements Receiver {
  private app: App | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly log: Logger) {}

  init(app: App): void {
    this.app = app;
  }

  // The Fastify server listens; Bolt has nothing to start or stop.
  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  dispatch(body: SlackBody, retryNum: number | undefined, retryReason: string | undefined): Promise<AckOutcome> {
    const app = this.app;
    if (!app) return Promise.reject(new Error('Slack receiver used before Bolt initialised it'));
    return new Promise<AckOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: AckOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        if (!settled) this.log.warn('Slack delivery not acknowledged in time; answered empty');
        settle({ kind: 'timeout' });
      }, ACK_DEADLINE_MS);
      const event: ReceiverEvent = {
        body,
        retryNum,
        retryReason,
        ack: async (response?: unknown) => settle({ kind: 'ack', body: response }),
      };
      let failed = false;
      const work = app
        .processEvent(event)
        .catch((err: unknown) => {
          failed = true;
          this.log.error({ error: briefError(unwrapBolt(err)) }, 'Slack delivery failed');
        })
        .finally(() => {
          settle({ kind: 'unhandled', error: failed });
          this.inFlight.delete(work);
        });
      this.inFlight.add(work);
    });
  }

  /** Waits (at most `ms`) for work still running after its ack. */
  async drain(ms = 10_000): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }
}
