import { sql } from 'kysely';
import { z } from 'zod';
import type { WebhookDeliveryStatus } from '../db/schema.js';
import type { Ctx } from './context.js';
import { notFound } from './errors.js';
import { id, pageQuery } from './fields.js';
import { newId } from './ids.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { requireConfigWrite } from './permissions.js';
import { toIso } from './time.js';
import { laterThanAll } from './webhook-outbox.js';
import { findWebhook } from './webhooks.js';

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed'] as const satisfies readonly WebhookDeliveryStatus[];

export const webhookDeliverySchema = z.object({
  id: z.string(),
  event_id: z.string().describe('The event delivered, and the `webhook-id` header (the same on every attempt)'),
  attempt: z.number().int().describe('1 for the first attempt (and for a redelivery), then 2, 3, …'),
  status: z.enum(DELIVERY_STATUSES).describe('pending: waiting for its time (or for earlier deliveries); sending: under way; succeeded: a 2xx within 10 s; failed: anything else'),
  response_status: z.number().int().nullable().describe("The receiver's HTTP status; null when it did not answer"),
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable().describe('Why the attempt failed'),
  next_attempt_at: z.string().nullable().describe('Pending: when it is due. Failed: when the next attempt is due; null when given up'),
  created_at: z.string(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const listWebhookDeliveriesInput = z.object({ id: id('wh'), ...pageQuery });
export const redeliverWebhookEventInput = z.object({ id: id('wh'), delivery_id: id('whd') });

export const deliveryColumns = ['id', 'event_id', 'attempt', 'status', 'response_status', 'duration_ms', 'error', 'next_attempt_at', 'created_at'] as const;

interface DeliveryRow {
  id: string;
  event_id: string;
  attempt: number;
  status: WebhookDeliveryStatus;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

export function presentDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    event_id: row.event_id,
    attempt: row.attempt,
    status: row.status,
    response_status: row.response_status,
    duration_ms: row.duration_ms,
    error: row.error,
    next_attempt_at: toIso(row.next_attempt_at),
    created_at: toIso(row.created_at),
  };
}

/** A webhook's attempts, newest first. */
export async function listWebhookDeliveries(ctx: Ctx, input: z.infer<typeof listWebhookDeliveriesInput>): Promise<Page<WebhookDelivery>> {
  requireConfigWrite(ctx.principal);
  const hook = await findWebhook(ctx, input.id);
  const scope = ['webhook_deliveries', ctx.principal.orgId, hook.id];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = ctx.db.selectFrom('webhook_deliveries').select(deliveryColumns).where('webhook_id', '=', hook.id);
  if (at) q = q.where(before('created_at', 'id', at, 'timestamptz'));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.created_at, id: r.id }), presentDelivery, scope);
}

/**
 * Sends a delivery's event again: a new first attempt (its own retry schedule), queued after
 * what the endpoint already has waiting. The `webhook-id` is the event's, as always, so a
 * receiver that already has it can tell.
 */
export async function redeliverWebhookEvent(ctx: Ctx, input: z.infer<typeof redeliverWebhookEventInput>): Promise<WebhookDelivery> {
  requireConfigWrite(ctx.principal);
  const hook = await findWebhook(ctx, input.id);
  const original = await ctx.db
    .selectFrom('webhook_deliveries')
    .select(['event_id', 'event_seq'])
    .where('webhook_id', '=', hook.id)
    .where('id', '=', input.delivery_id)
    .executeTakeFirst();
  if (!original) throw notFound('webhook_delivery', input.delivery_id);
  const now = ctx.clock().toISOString();
  const row = await ctx.db
    .insertInto('webhook_deliveries')
    .values({
      id: newId('whd'),
      webhook_id: hook.id,
      event_id: original.event_id,
      event_seq: original.event_seq,
      attempt: 1,
      position: sql<string>`nextval('webhook_delivery_positions')`,
      status: 'pending',
      next_attempt_at: now,
      created_at: laterThanAll(hook.id, now),
      updated_at: now,
    })
    .returning(deliveryColumns)
    .executeTakeFirstOrThrow();
  return presentDelivery(row);
}
