import type { Logger } from 'pino';
import type { Db } from '../src/domain/context.js';
import type { WebhookPolicy } from '../src/domain/webhook-addresses.js';
import { recordWebhookDisabled, webhookPayloads } from '../src/domain/webhook-events.js';
import { asyncCommit, claimDueRuns, LEASE_MS, recordAttempt, recordRun, RUN_SIZE, type AttemptOutcome, type ClaimedDelivery, type SentAttempt } from '../src/domain/webhook-outbox.js';
import { toIso } from '../src/domain/time.js';
import { webhookSignature } from '../src/domain/webhook-signature.js';
import { ATTEMPT_TIMEOUT_MS, RunConnections, sendDelivery } from './webhook-send.js';

/** What delivering webhooks needs; everything it touches is handed in, so tests run it as is. */
export interface WebhookDeps {
  db: Db;
  /** The schedule's clock: when attempts are due, and the `webhook-timestamp` of each. */
  clock: () => Date;
  log: Logger;
  policy: WebhookPolicy;
  /** How long an attempt may take (default 10 s). */
  timeoutMs?: number;
  /** Endpoints sent to at once (default 8): each lane takes one run of one endpoint's attempts at a time. */
  lanes?: number;
  /** True once the process is stopping: lanes finish the attempt they are sending, give back the rest of their run and take no more. */
  stopping?: () => boolean;
}

export interface DeliveryRun {
  succeeded: number;
  failed: number;
}

/**
 * One sweep: sends every attempt that is due now, until none is left. Each lane claims a run
 * (up to `RUN_SIZE` attempts of one endpoint, in order, see `claimDueRuns`), reads their
 * events in one statement, sends them one after another and records how they went
 * (`sendRun`), then claims the next; an endpoint's attempts therefore go one at a time, in
 * order.
 */
export async function deliverWebhooks(deps: WebhookDeps): Promise<DeliveryRun> {
  const run: DeliveryRun = { succeeded: 0, failed: 0 };
  const lane = async (first?: ClaimedDelivery[]) => {
    let claimed = first;
    while (!deps.stopping?.()) {
      claimed ??= (await claimDueRuns(deps.db, deps.clock(), 1, RUN_SIZE))[0];
      if (!claimed) return;
      await sendRun(deps, claimed, run);
      claimed = undefined;
    }
  };
  // One claim first: a sweep that finds nothing due (most wake-ups) costs two statements, not two per lane.
  const [first] = deps.stopping?.() ? [] : await claimDueRuns(deps.db, deps.clock(), 1, RUN_SIZE);
  if (!first) return run;
  await Promise.all([lane(first), ...Array.from({ length: (deps.lanes ?? 8) - 1 }, () => lane())]);
  return run;
}

/**
 * Sends a claimed run in order, and records it: the successes in one statement at the end
 * (with the unsent rest given back if the lane stops), or, at the first failure, the successes
 * before it, the failure (its retry on the ladder, the 3-day disable) and the rest given back
 * unsent, in one transaction, so nothing after a failed attempt goes before it. The run's lease
 * is extended (with the successes so far recorded) whenever what is left of it could not cover
 * the next attempt.
 */
async function sendRun(deps: WebhookDeps, claimed: ClaimedDelivery[], tally: DeliveryRun): Promise<void> {
  // The run's attempts go one after another to one endpoint: over one kept-alive connection while its address holds.
  const connections = new RunConnections();
  try {
    await sendRunOver(deps, claimed, tally, connections);
  } finally {
    connections.close();
  }
}

async function sendRunOver(deps: WebhookDeps, claimed: ClaimedDelivery[], tally: DeliveryRun, connections: RunConnections): Promise<void> {
  const head = claimed[0];
  if (!head) return;
  const webhookId = head.webhook_id;
  let lease = head.lease_until;
  const payloads = new Map((await webhookPayloads(deps.db, [...new Set(claimed.map((c) => c.event_seq))])).map((p) => [p.seq, p.body]));
  const timeoutMs = deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  let succeeded: SentAttempt[] = [];
  for (let i = 0; i < claimed.length; i++) {
    const claim = claimed[i]!;
    const rest = () => claimed.slice(i).map((c) => c.id);
    if (i > 0 && deps.stopping?.()) {
      await finish(deps, { webhookId, lease, succeeded, rest: rest(), restTo: { release: true } });
      return;
    }
    const now = deps.clock();
    if (Date.parse(toIso(lease)) - now.getTime() < timeoutMs + LEASE_MARGIN_MS) {
      const extended = new Date(now.getTime() + LEASE_MS).toISOString();
      const kept = await finish(deps, { webhookId, lease, succeeded, rest: rest(), restTo: { extend: extended } });
      succeeded = [];
      lease = extended;
      if (!kept) return;
    }
    const started = deps.clock();
    const outcome = await attempt(deps, { ...claim, lease_until: lease }, payloads.get(claim.event_seq), connections);
    if (outcome.ok) {
      tally.succeeded++;
      succeeded.push({ id: claim.id, responseStatus: outcome.responseStatus, durationMs: outcome.durationMs, at: deps.clock().toISOString() });
      continue;
    }
    tally.failed++;
    await recordFailure(deps, { webhookId, lease, succeeded, rest: rest().slice(1), restTo: { release: true } }, { ...claim, lease_until: lease }, outcome, started);
    return;
  }
  if (succeeded.length > 0) await finish(deps, { webhookId, lease, succeeded, rest: [], restTo: { release: true } });
}

/** How much longer than an attempt's timeout a run's lease must still hold before it is sent. */
const LEASE_MARGIN_MS = 15_000;

type RunPart = Parameters<typeof recordRun>[1];

/** Records successes and the rest of a run (`recordRun`); false when the lease was lost. */
async function finish(deps: WebhookDeps, part: RunPart): Promise<boolean> {
  const done = await recordRun(deps.db, part, deps.clock());
  if (done.succeeded === part.succeeded.length && done.rest === part.rest.length) return true;
  deps.log.info({ webhook: part.webhookId }, 'webhooks: a run outlived its lease; another worker took it over');
  return false;
}

/** Sends one attempt: the event as `{type, timestamp, data}`, signed for the endpoint's secret now. */
async function attempt(deps: WebhookDeps, claim: ClaimedDelivery, body: string | undefined, connections: RunConnections): Promise<AttemptOutcome> {
  if (body === undefined) return { ok: false, responseStatus: null, durationMs: 0, error: 'the event is no longer kept' };
  const timestamp = Math.floor(deps.clock().getTime() / 1000);
  const headers = {
    'webhook-id': claim.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(claim.secret, claim.event_id, timestamp, body),
  };
  try {
    return await sendDelivery(claim.url, headers, body, { policy: deps.policy, timeoutMs: deps.timeoutMs, connections });
  } catch (err) {
    deps.log.warn({ err: (err as Error).message, webhook: claim.webhook_id }, 'webhooks: an attempt failed unexpectedly');
    return { ok: false, responseStatus: null, durationMs: 0, error: 'internal error' };
  }
}

/**
 * Records a failed attempt of a run, in one transaction with the run's successes before it, the
 * rest given back unsent, and the `webhook.disabled` event when it disabled the endpoint.
 */
async function recordFailure(deps: WebhookDeps, part: RunPart, claim: ClaimedDelivery, outcome: AttemptOutcome, started: Date): Promise<void> {
  const now = deps.clock();
  const result = await deps.db.transaction().execute(async (trx) => {
    await asyncCommit(trx);
    const before = await recordRun(trx, part, now);
    const recorded = await recordAttempt(trx, claim, outcome, started, now);
    if (recorded.disabled) await recordWebhookDisabled(trx, claim.webhook_id, now);
    return { ...recorded, whole: before.succeeded === part.succeeded.length && before.rest === part.rest.length };
  });
  if (!result.recorded || !result.whole) deps.log.info({ delivery: claim.id }, 'webhooks: a run outlived its lease; another worker took it over');
  if (result.disabled) deps.log.warn({ webhook: claim.webhook_id }, 'webhooks: disabled after failing every attempt for 3 days');
}
