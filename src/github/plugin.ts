import { Webhooks } from '@octokit/webhooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';
import { githubActor } from '../domain/github-actor.js';
import { githubPrincipal, pruneGithubDeliveries } from '../domain/github-deliveries.js';
import { PER_ADDRESS } from '../http/rate-limit.js';
import { callOperation } from '../operations/call.js';
import type { Runtime } from '../operations/execute.js';
import { applyGithubPullRequestOp } from '../operations/github.js';
import { writeTransaction } from '../operations/write-transaction.js';
import { readPullRequest } from './payload.js';

export const GITHUB_WEBHOOKS_PATH = '/github/webhooks';

// GitHub caps a delivery's payload at 25 MB.
const BODY_LIMIT = 25 * 1024 * 1024;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const SIGNATURE = /^sha256=[0-9a-f]{64}$/;

export interface GithubPluginOptions {
  config: Config;
  runtime: Runtime;
  log: Logger;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const notSignedByGithub = () =>
  new AppError('invalid_github_signature', 401, 'This request is not signed with the GitHub webhook secret (X-Hub-Signature-256).');

/**
 * `POST /github/webhooks` (contract §12), when `GITHUB_WEBHOOK_SECRET` is set; without it
 * nothing is registered and the path is an ordinary 404. In its own encapsulated plugin, as
 * Slack's receiver is: it reads bodies raw (the signature covers the exact bytes) without
 * touching the JSON parser `/v1` uses.
 */
export async function registerGithub(app: FastifyInstance, options: GithubPluginOptions): Promise<void> {
  const secret = options.config.github.webhookSecret;
  if (!secret) return;
  const log = options.log.child({ component: 'github' });
  await app.register(async (scope) => webhooksRoute(scope, options, new Webhooks({ secret }), log));
  const prune = setInterval(() => {
    writeTransaction(options.runtime, (trx) => pruneGithubDeliveries(trx, options.runtime.clock())).catch((err: Error) =>
      log.warn({ err: err.message }, 'GitHub delivery cleanup failed'),
    );
  }, PRUNE_EVERY_MS);
  prune.unref();
  app.addHook('onClose', async () => clearInterval(prune));
}

async function webhooksRoute(scope: FastifyInstance, options: GithubPluginOptions, webhooks: Webhooks, log: Logger): Promise<void> {
  const { config, runtime } = options;
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));

  // Counted per address first; a request without a well-formed signature is refused before its body is read.
  const onRequest = async (request: FastifyRequest): Promise<void> => {
    if (!SIGNATURE.test(header(request, 'x-hub-signature-256') ?? '')) throw notSignedByGithub();
  };
  scope.post(GITHUB_WEBHOOKS_PATH, { bodyLimit: BODY_LIMIT, config: PER_ADDRESS, onRequest }, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    // GitHub's own check (constant time, over the exact bytes as sent).
    if (!(await webhooks.verify(raw.toString('utf8'), header(request, 'x-hub-signature-256')!))) {
      request.log.warn('GitHub delivery refused: bad signature');
      throw notSignedByGithub();
    }
    const event = header(request, 'x-github-event') ?? '';
    const deliveryId = header(request, 'x-github-delivery') ?? '';
    if (event === 'ping') return reply.code(200).type('application/json; charset=utf-8').send('{"ok":true}');
    // Only pull requests move cards; every other event (reviews included) is acknowledged and left.
    if (event !== 'pull_request') return reply.code(204).send();
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new AppError('malformed_request', 400, 'The delivery is not JSON: set the webhook\'s content type to application/json.');
    }
    const read = readPullRequest(deliveryId, body);
    if (!read) return reply.code(204).send();
    if (deliveryId === '') throw new AppError('malformed_request', 400, 'The delivery has no X-GitHub-Delivery header.');
    const actor = githubActor({ sender: read.sender, merged: read.delivery.merged, mergedBy: read.mergedBy }, config.github.agentLogins);
    const principal = await githubPrincipal(runtime.db, config.github.org, actor);
    if (!principal) {
      log.error({ org: config.github.org }, 'GITHUB_ORG names no organization; delivery ignored');
      throw new AppError('organization_not_found', 404, `GITHUB_ORG names no organization of this server (${config.github.org}).`);
    }
    const result = await callOperation(runtime, applyGithubPullRequestOp, principal, read.delivery);
    return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(result));
  });
}
