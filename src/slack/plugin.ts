import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pruneDeliveries } from '../domain/slack-deliveries.js';
import { writeTransaction } from '../operations/write-transaction.js';
import type { Db } from '../domain/context.js';
import { AppError } from '../domain/errors.js';
import { pruneConnectLinks } from '../domain/slack-connect.js';
import { envelopeFor } from '../http/envelope.js';
import { PER_ADDRESS } from '../http/rate-limit.js';
import { createBoltApp } from './bolt-app.js';
import { DeliveryRecorder } from './delivery-recorder.js';
import type { SlackDeps } from './deps.js';
import { isSslCheck, MalformedSlackBody, parseSlackBody } from './payload.js';
import { FastifyReceiver, notSignedBySlack, refuseUnsignedBeforeBody, type AckOutcome } from './receiver.js';
import { checkSlackSignature } from './signature.js';

export const SLACK_EVENTS_PATH = '/slack/events';

// Slack's payloads are small; a message's blocks stay well under this.
const BODY_LIMIT = 1024 * 1024;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
// Connections for recording deliveries before their ack, each running one batch of them (a
// group commit: see DeliveryRecorder).
const ACK_POOL_SIZE = 2;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function retryNumber(request: FastifyRequest): number | undefined {
  const raw = header(request, 'x-slack-retry-num');
  if (raw === undefined || !/^\d{1,6}$/.test(raw.trim())) return undefined;
  return Number(raw);
}

function sendAck(reply: FastifyReply, outcome: AckOutcome, requestId: string): FastifyReply {
  if (outcome.kind === 'unhandled' && outcome.error) return reply.code(500).send(envelopeFor(500, requestId));
  if (outcome.kind !== 'ack' || outcome.body === undefined || outcome.body === null || outcome.body === '') return reply.code(200).send();
  if (typeof outcome.body === 'string') return reply.code(200).type('text/plain; charset=utf-8').send(outcome.body);
  return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(outcome.body));
}

/** A pool of its own, opened for the plugin and closed with the app. */
export interface OwnPool {
  db: Db;
  close(): Promise<void>;
}

export interface SlackPluginOptions extends SlackDeps {
  /**
   * Opens a small pool of the server's database (`asyncCommit`: its commits do not wait for
   * the WAL flush); undefined where there is one connection only (PGlite): the runtime's db then.
   */
  openPool?: ((options: { poolSize: number; asyncCommit: boolean }) => Promise<OwnPool>) | undefined;
}

/**
 * The Slack app, when configured: Socket Mode when `SLACK_APP_TOKEN` is set (no HTTP
 * endpoint then), else `POST /slack/events` when the signing secret and bot token are set.
 * Without them nothing is registered and `/slack/events` is an ordinary 404.
 */
export async function registerSlack(app: FastifyInstance, deps: SlackPluginOptions): Promise<void> {
  const { signingSecret, botToken, appToken } = deps.config.slack;
  if (!botToken) return;
  if (!appToken && !signingSecret) return;
  const log = deps.log.child({ component: 'slack' });
  // The ack's own small pool on a server: the delivery record it waits for must never queue
  // behind earlier commands' reads for a connection of the shared pool (Slack gives up at 3 s).
  // Its commits do not wait for the WAL flush: whatever the command then writes commits after
  // it, durably, and WAL order makes the record durable first; if the database crashes before
  // either is, a retry finds nothing done and acts once. PGlite has one connection anyway.
  const ack = deps.openPool ? await deps.openPool({ poolSize: ACK_POOL_SIZE, asyncCommit: true }) : undefined;
  app.addHook('onClose', async () => ack?.close());
  const slackDeps: SlackDeps = { ...deps, deliveries: new DeliveryRecorder(ack?.db ?? deps.runtime.db, ack ? ACK_POOL_SIZE : 1) };
  if (appToken) {
    registerSocketMode(app, slackDeps, botToken, appToken);
  } else if (signingSecret) {
    await app.register(async (scope) => eventsRoute(scope, slackDeps, botToken, signingSecret));
  }
  const prune = setInterval(() => {
    writeTransaction(deps.runtime, (trx) => pruneDeliveries(trx)).catch((err: Error) => log.warn({ err: err.message }, 'Slack delivery cleanup failed'));
    writeTransaction(deps.runtime, (trx) => pruneConnectLinks(trx, deps.runtime.clock())).catch((err: Error) => log.warn({ err: err.message }, 'Slack connect link cleanup failed'));
  }, PRUNE_EVERY_MS);
  prune.unref();
  app.addHook('onClose', async () => clearInterval(prune));
}

// Retrying a failed Socket Mode start: after 1 s, doubling, at most every 5 minutes.
const SOCKET_RETRY_FIRST_MS = 1_000;
const SOCKET_RETRY_MAX_MS = 5 * 60_000;

/**
 * Socket Mode: Bolt's own receiver over a WebSocket that the app opens to Slack; no request
 * URL and no signatures. Connecting needs Slack itself, so it starts once the server is
 * ready and never takes the server down: the socket client rides out a Slack outage with
 * its own retries (see `createBoltApp`), and a start that still fails (a refused token,
 * Slack down for long) is logged and tried again, backing off, until the server closes.
 */
function registerSocketMode(app: FastifyInstance, deps: SlackDeps, botToken: string, appToken: string): void {
  const bolt = createBoltApp(deps, botToken, { socketMode: { appToken } });
  const log = deps.log.child({ component: 'slack' });
  let closing = false;
  let retry: NodeJS.Timeout | undefined;
  const start = (attempt: number): void => {
    bolt.start().then(
      () => {
        if (attempt > 1) log.info({ attempt }, 'Slack Socket Mode connected');
      },
      (err: Error) => {
        if (closing) return;
        const delay = Math.min(SOCKET_RETRY_FIRST_MS * 2 ** (attempt - 1), SOCKET_RETRY_MAX_MS);
        log.error({ err: err.message, attempt, retry_in_ms: delay }, 'Slack Socket Mode could not connect; trying again');
        retry = setTimeout(() => start(attempt + 1), delay);
        retry.unref();
      },
    );
  };
  app.addHook('onReady', async () => start(1));
  app.addHook('onClose', async () => {
    closing = true;
    clearTimeout(retry);
    await bolt.stop().catch(() => {});
  });
}

/**
 * `POST /slack/events` in its own encapsulated plugin: it reads bodies raw (the signature
 * covers the exact bytes) without touching the JSON parser `/v1` uses.
 */
async function eventsRoute(scope: FastifyInstance, deps: SlackDeps, botToken: string, signingSecret: string): Promise<void> {
  const receiver = new FastifyReceiver(deps.log.child({ component: 'slack' }));
  createBoltApp(deps, botToken, { receiver });

  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));
  scope.addHook('onClose', async () => receiver.drain());

  // Counted per address before anything else; an unsigned or stale request is refused before its body is read.
  const onRequest = refuseUnsignedBeforeBody(() => deps.runtime.clock());
  scope.post(SLACK_EVENTS_PATH, { bodyLimit: BODY_LIMIT, config: PER_ADDRESS, onRequest }, async (request, reply) => {
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const contentType = header(request, 'content-type');
    // Slack's probe is unsigned and does nothing but prove we answer.
    if (isSslCheck(rawBody, contentType)) return reply.code(200).send();
    const problem = checkSlackSignature({
      signingSecret,
      rawBody,
      signature: header(request, 'x-slack-signature'),
      timestamp: header(request, 'x-slack-request-timestamp'),
      now: deps.runtime.clock(),
    });
    if (problem) {
      request.log.warn({ problem }, 'Slack request refused');
      throw notSignedBySlack();
    }
    let body: Record<string, unknown>;
    try {
      body = parseSlackBody(rawBody, contentType);
    } catch (err) {
      if (err instanceof MalformedSlackBody) throw new AppError('malformed_request', 400, 'The request could not be read.');
      throw err;
    }
    if (body.type === 'url_verification') {
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify({ challenge: body.challenge }));
    }
    const outcome = await receiver.dispatch(body, retryNumber(request), header(request, 'x-slack-retry-reason'));
    return sendAck(reply, outcome, request.id);
  });
}
