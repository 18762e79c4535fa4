import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Principal } from '../domain/context.js';
import { AppError } from '../domain/errors.js';
import { confirmSlackConnect, linkedElsewhereMessage, previewSlackConnect } from '../domain/slack-connect.js';
import type { AuthCache } from '../http/auth-cache.js';
import { PER_ADDRESS } from '../http/rate-limit.js';
import { crossSiteRequest, isSameOriginRequest } from '../http/same-origin.js';
import { SESSION_COOKIE } from '../http/session-cookie.js';
import { sendHtml } from '../http/signin.js';
import type { Runtime } from '../operations/execute.js';
import { writeTransaction } from '../operations/write-transaction.js';
import {
  confirmConnectPage,
  connectCrossSitePage,
  connectedPage,
  connectRefusedPage,
  connectSignInFirstPage,
  invalidConnectPage,
  linkedElsewherePage,
} from './views/connect-pages.js';

/** Where `/tack connect`'s links point: under /slack, so never the web app (contract §8). */
export const SLACK_CONNECT_PATH = '/slack/connect';

export interface SlackConnectDeps {
  config: Config;
  runtime: Runtime;
  authCache: AuthCache;
}

// A code: nothing bigger belongs in this form.
const BODY_LIMIT = 16 * 1024;

function isForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

function field(source: unknown, name: string): string {
  const value = source && typeof source === 'object' && !Array.isArray(source) ? (source as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * The confirm page of `/tack connect` (registered in the pages' scope: their cookie parser
 * and security headers; its own form parser), when Slack is configured:
 *
 * - `GET /slack/connect?code=…` shows, to a signed-in browser, which Slack user would act as
 *   which member, and a button; it changes nothing (link scanners and unfurlers open links).
 *   Not signed in: how to sign in. A used, expired or unknown code: 400, saying so.
 * - `POST /slack/connect` (form field `code`), from tack's own pages with the session cookie,
 *   links the Slack user to the session's member (403 `cross_site_request` from elsewhere,
 *   changing nothing).
 *
 * Every answer is `Cache-Control: no-store`.
 */
export async function slackConnectRoutes(app: FastifyInstance, deps: SlackConnectDeps): Promise<void> {
  if (!deps.config.slack.botToken) return;
  const { runtime, authCache } = deps;
  await app.register(formbody, { bodyLimit: BODY_LIMIT });

  /** The signed-in member behind the browser's session cookie; undefined when there is none that works. */
  const signedIn = async (request: FastifyRequest): Promise<Principal | undefined> => {
    const secret = request.cookies?.[SESSION_COOKIE];
    if (!secret) return undefined;
    try {
      return (await authCache.authenticateSession(secret)).principal;
    } catch (err) {
      if (err instanceof AppError && err.status === 401) return undefined;
      throw err;
    }
  };

  /** A refusal as a page (a form, a browser's GET), or as the envelope (anything else). */
  const refuse = (request: FastifyRequest, reply: FastifyReply, err: AppError, page: string): FastifyReply => {
    if (request.method === 'POST' && !isForm(request)) throw err;
    return sendHtml(reply, err.status, page);
  };

  const pageFor = (err: AppError): string => {
    if (err.code === 'invalid_slack_connect_code') return invalidConnectPage();
    if (err.status === 401) return connectSignInFirstPage();
    if (err.code === 'slack_user_linked') return linkedElsewherePage(err.userMessage);
    return connectRefusedPage(err.userMessage);
  };

  app.get(SLACK_CONNECT_PATH, { config: PER_ADDRESS }, async (request, reply) => {
    const code = field(request.query, 'code');
    const principal = await signedIn(request);
    if (!principal) return sendHtml(reply, 200, connectSignInFirstPage());
    try {
      const preview = await previewSlackConnect(runtime.db, code, principal, runtime.clock());
      if (preview.linkedElsewhere) return sendHtml(reply, 409, linkedElsewherePage(linkedElsewhereMessage(preview.linkedElsewhere)));
      return sendHtml(reply, 200, confirmConnectPage(preview, code));
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return refuse(request, reply, err, pageFor(err));
      throw err;
    }
  });

  const refuseCrossSite = async (request: FastifyRequest, reply: FastifyReply) => {
    if (isSameOriginRequest(request, runtime.appUrl ?? deps.config.appUrl)) return;
    if (isForm(request)) return sendHtml(reply, 403, connectCrossSitePage());
    throw crossSiteRequest();
  };

  app.post(SLACK_CONNECT_PATH, { bodyLimit: BODY_LIMIT, config: PER_ADDRESS, onRequest: refuseCrossSite }, async (request, reply) => {
    try {
      const principal = await signedIn(request);
      if (!principal) throw new AppError('unauthorized', 401, 'Sign in to tack first, then open the link from Slack again.');
      const code = field(request.body, 'code');
      const linked = await writeTransaction(runtime, async (trx, scope) => {
        const result = await confirmSlackConnect(trx, code, principal, runtime.clock());
        await scope.authChanged();
        return result;
      });
      request.log.info({ member: linked.member.id, slack_user: linked.slackUserId }, 'Slack account linked with /tack connect');
      return sendHtml(reply, 200, connectedPage(linked));
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return refuse(request, reply, err, pageFor(err));
      throw err;
    }
  });
}
