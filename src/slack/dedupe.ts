import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Delivery } from '../db/slack-deliveries.js';
import { requestHash } from '../domain/idempotency.js';
import type { DeliveryRecorder } from './delivery-recorder.js';

/**
 * What makes a delivery the same delivery: Slack's `event_id` for events; for commands and
 * interactions, which carry no delivery id, the whole payload (a retry repeats it byte for
 * byte, while a new invocation always differs, if only by its trigger_id).
 */
export function deliveryIdentity(body: Record<string, unknown>): Delivery {
  if (typeof body.event_id === 'string' && body.event_id !== '') return { identity: `event:${body.event_id}`, kind: 'event' };
  const hash = requestHash(body);
  if (typeof body.command === 'string') return { identity: `command:${hash}`, kind: 'command' };
  if (typeof body.type === 'string' && typeof body.trigger_id === 'string') return { identity: `action:${hash}`, kind: 'action' };
  return { identity: `other:${hash}`, kind: 'other' };
}

/**
 * Global Bolt middleware: every delivery is recorded in Postgres before anything acts; a
 * retry (`X-Slack-Retry-Num`, or Socket Mode's retry_attempt) of a delivery already recorded
 * is acknowledged and dropped. Stored, so a retry reaching another process or a restarted
 * one is still recognised; recorded in batches with the deliveries arriving alongside (see
 * `DeliveryRecorder`), each committed before its delivery goes on.
 */
export function dedupeRetries(deliveries: DeliveryRecorder, log: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const delivery = deliveryIdentity(args.body as Record<string, unknown>);
    const { identity } = delivery;
    const fresh = await deliveries.record(delivery);
    if (!fresh && args.context.retryNum !== undefined) {
      log.info({ identity, retry: args.context.retryNum, reason: args.context.retryReason }, 'Slack retry of a delivery already handled; dropped');
      if ('ack' in args && typeof args.ack === 'function') await args.ack();
      return;
    }
    await args.next();
  };
}
