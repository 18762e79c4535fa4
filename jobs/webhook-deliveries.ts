import type { Logger } from 'pino';
import { asyncCommit } from '../src/domain/webhook-outbox.js';
import type { Db } from '../src/domain/context.js';
import type { WebhookPolicy } from '../src/domain/webhook-addresses.js';
import { recordWebhookDisabled, webhookPayloads } from '../src/domain/webhook-events.js';
import { claimDueDeliveries, recordAttempt, type AttemptOutcome, type ClaimedDelivery } from '../src/domain/webhook-outbox.js';
import { webhookSignature } from '../src/domain/webhook-signature.js';
import { sendDelivery } from './webhook-send.js';

/** What delivering webhooks needs; everything it touches is handed in, so tests run it as is. */
export interface WebhookDeps {
  db: Db;
  /** The schedule's clock: when attempts are due, and the `webhook-timestamp` of each. */
  clock: () => Date;
  log: Logger;
  policy: WebhookPolicy;
  /** How long an attempt may take (default 10 s). */
  timeoutMs?: number;
  /** Endpoints sent to at once (default 8): each lane takes one attempt at a time. */
  lanes?: number;
  /** True once the process is stopping: lanes finish the attempt they hold and take no more. */
  stopping?: () => boolean;
}

export interface DeliveryRun {
  succeeded: number;
  failed: number;
}

/**
 * One sweep: sends every attempt that is due now, until none is left. Each lane claims one
 * attempt (the next of one endpoint, see `claimDueDeliveries`), sends it and records how it
 * went, then claims the next; an endpoint's attempts therefore go one at a time, in order.
 */
export async function deliverWebhooks(deps: WebhookDeps): Promise<DeliveryRun> {
  const run: DeliveryRun = { succeeded: 0, failed: 0 };
  const lane = async (first?: ClaimedDelivery) => {
    let claim = first;
    while (!deps.stopping?.()) {
      claim ??= (await claimDueDeliveries(deps.db, deps.clock(), 1))[0];
      if (!claim) return;
      const started = deps.clock();
      const outcome = await attempt(deps, claim);
      if (outcome.ok) run.succeeded++;
      else run.failed++;
      await record(deps, claim, outcome, started);
      claim = undefined;
    }
  };
  // One claim first: a sweep that finds nothing due (most wake-ups) costs one statement, not one per lane.
  const [first] = deps.stopping?.() ? [] : await claimDueDeliveries(deps.db, deps.clock(), 1);
  if (!first) return run;
  await Promise.all([lane(first), ...Array.from({ length: (deps.lanes ?? 8) - 1 }, () => lane())]);
  return run;
}

/** Sends one attempt: the event as `{type, timestamp, data}`, signed for the endpoint's secret now. */
async function attempt(deps: WebhookDeps, claim: ClaimedDelivery): Promise<AttemptOutcome> {
  const [payload] = await webhookPayloads(deps.db, [claim.event_seq]);
  if (!payload) return { ok: false, responseStatus: null, durationMs: 0, error: 'the event is no longer kept' };
  const timestamp = Math.floor(deps.clock().getTime() / 1000);
  const headers = {
    'webhook-id': claim.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(claim.secret, claim.event_id, timestamp, payload.body),
  };
  try {
    return await sendDelivery(claim.url, headers, payload.body, { policy: deps.policy, timeoutMs: deps.timeoutMs });
  } catch (err) {
    deps.log.warn({ err: (err as Error).message, webhook: claim.webhook_id }, 'webhooks: an attempt failed unexpectedly');
    return { ok: false, responseStatus: null, durationMs: 0, error: 'internal error' };
  }
}

/** Records the outcome, and the `webhook.disabled` event when it disabled the endpoint, in one transaction. */
async function record(deps: WebhookDeps, claim: ClaimedDelivery, outcome: AttemptOutcome, started: Date): Promise<void> {
  const now = deps.clock();
  const result = await deps.db.transaction().execute(async (trx) => {
    await asyncCommit(trx);
    const recorded = await recordAttempt(trx, claim, outcome, started, now);
    if (recorded.disabled) await recordWebhookDisabled(trx, claim.webhook_id, now);
    return recorded;
  });
  if (!result.recorded) deps.log.info({ delivery: claim.id }, 'webhooks: an attempt outlived its lease; another worker took it over');
  if (result.disabled) deps.log.warn({ webhook: claim.webhook_id }, 'webhooks: disabled after failing every attempt for 3 days');
}
