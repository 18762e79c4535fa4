import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { eventColumns, presentEvent, writeEvents } from './events.js';
import { presentWebhook, webhookColumns } from './webhooks.js';

/** What a delivery POSTs for one event (Standard Webhooks): `{type, timestamp, data: <the event>}`, as sent. */
export interface WebhookPayload {
  seq: string;
  body: string;
}

/** The bodies of events still kept, by `seq`. */
export async function webhookPayloads(db: Kysely<Database>, seqs: readonly string[]): Promise<WebhookPayload[]> {
  if (seqs.length === 0) return [];
  const rows = await db.selectFrom('events').select(eventColumns).where('seq', 'in', seqs).execute();
  return rows.map((row) => {
    const event = presentEvent(row);
    return { seq: String(row.seq), body: JSON.stringify({ type: event.type, timestamp: event.created_at, data: event }) };
  });
}

/**
 * Records `webhook.disabled` for an endpoint the delivery job just disabled (3 days of failed
 * attempts), in that transaction: made by the job, seen by owners and admins, and delivered
 * to the organization's other webhooks that want it.
 */
export async function recordWebhookDisabled(trx: Kysely<Database>, webhookId: string, now: Date): Promise<void> {
  const hook = await trx.selectFrom('webhooks').select([...webhookColumns, 'org_id']).where('id', '=', webhookId).executeTakeFirstOrThrow();
  const data = presentWebhook(hook);
  await writeEvents(trx, [
    {
      org_id: hook.org_id,
      type: 'webhook.disabled',
      created_at: now.toISOString(),
      actor_member_id: null,
      actor_name: 'tack',
      actor_agent: false,
      face: 'job',
      subject_type: 'webhook',
      subject_id: hook.id,
      subject_ref: null,
      card_id: null,
      audience: 'admins',
      member_id: null,
      changes: { enabled: [true, false], disabled_at: [null, data.disabled_at] },
      data: data as unknown as Record<string, unknown>,
    },
  ]);
}
