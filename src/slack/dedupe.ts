import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { recordDelivery } from '../db/slack-deliveries.js';
import type { Database, SlackDeliveriesTable } from '../db/schema.js';
import { requestHash } from '../domain/idempotency.js';

export interface DeliveryIdentity {
  identity: string;
  kind: SlackDeliveriesTable['kind'];
}

/**
 * What makes a delivery the same delivery: Slack's `event_id` for events; for commands and
 * interactions, which carry no delivery id, the whole payload (a retry repeats it byte for
 * byte, while a new invocation always differs, if only by its trigger_id).
 */
export function deliveryIdentity(body: Record<string, unknown>): DeliveryIdentity {
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
 * one is still recognised.
 */
export function dedupeRetries(db: Kysely<Database>, log: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { identity, kind } = deliveryIdentity(args.body as Record<string, unknown>);
    const fresh = await recordDelivery(db, identity, kind);
    if (!fresh && args.context.retryNum !== undefined) {
      log.info({ identity, retry: args.context.retryNum, reason: args.context.retryReason }, 'Slack retry of a delivery already handled; dropped');
      if ('ack' in args && typeof args.ack === 'function') await args.ack();
      return;
    }
    await args.next();
  };
}
