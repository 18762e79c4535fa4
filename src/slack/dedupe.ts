import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Delivery } from '../domain/slack-deliveries.js';
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
 * Whether a delivery already recorded is a repeat to drop: always for an event, a command or
 * an interaction, whose identity is unique to one delivery (Slack's event_id; a trigger_id
 * in the payload), whether or not it says it is a retry: the retry may even be handled
 * before its original when both arrive at once. A payload of another kind (no event id, no
 * trigger) may legitimately come twice alike, so only a declared retry of it is dropped.
 */
function isRepeat(delivery: Delivery, retryNum: number | undefined): boolean {
  return delivery.kind !== 'other' || retryNum !== undefined;
}

/**
 * Global Bolt middleware: every delivery is recorded in Postgres before anything acts; a
 * delivery already recorded (a retry, `X-Slack-Retry-Num` or Socket Mode's retry_attempt, or
 * the same event delivered twice) is acknowledged and dropped (`isRepeat`). Stored, so a
 * retry reaching another process or a restarted one is still recognised; recorded in batches
 * with the deliveries arriving alongside (see `DeliveryRecorder`), each committed before its
 * delivery goes on.
 */
export function dedupeRetries(deliveries: DeliveryRecorder, log: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const delivery = deliveryIdentity(args.body as Record<string, unknown>);
    const { identity } = delivery;
    const fresh = await deliveries.record(delivery);
    if (!fresh && isRepeat(delivery, args.context.retryNum)) {
      log.info({ identity, retry: args.context.retryNum, reason: args.context.retryReason }, 'Slack repeat of a delivery already handled; dropped');
      if ('ack' in args && typeof args.ack === 'function') await args.ack();
      return;
    }
    await args.next();
  };
}
