import { z } from 'zod';
import type { WebhooksTable } from '../db/schema.js';
import type { Ctx } from './context.js';
import { notFound, validationFailed } from './errors.js';
import { id, label, pageQuery } from './fields.js';
import { newId } from './ids.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { requireConfigWrite } from './permissions.js';
import { toIso } from './time.js';
import { PrivateWebhookAddress, resolveWebhookHost } from './webhook-addresses.js';
import { webhookEventPattern } from './webhook-event-types.js';
import { newWebhookSecret } from './webhook-signature.js';

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()).describe('Event types or prefixes such as `card.`; `["*"]` for all'),
  description: z.string().nullable(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  disabled_at: z.string().nullable().describe('When it was disabled, by a person or after failing every attempt for 3 days'),
  failing_since: z.string().nullable().describe('The first failed attempt since the last success; null while deliveries succeed'),
});
export type Webhook = z.infer<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema.extend({
  secret: z.string().describe('The signing secret (`whsec_…`). Shown this once.'),
});

const webhookUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(2000, 'must be at most 2000 characters')
  .describe('Where deliveries are POSTed: https://, or http:// to a public address');
const webhookEvents = z.array(webhookEventPattern).min(1).max(50).describe('Event types or prefixes ending in `.` (`card.`); `["*"]` for all');
const webhookDescription = label(500).nullable().describe('What the endpoint is for');

export const createWebhookInput = z.object({
  url: webhookUrl,
  events: webhookEvents,
  description: webhookDescription.optional(),
});

export const webhookIdInput = z.object({ id: id('wh') });

export const updateWebhookInput = z.object({
  id: id('wh'),
  url: webhookUrl.optional(),
  events: webhookEvents.optional(),
  description: webhookDescription.optional(),
  enabled: z.boolean().optional().describe('false stops deliveries (they wait); true resumes them'),
});

export const listWebhooksInput = z.object(pageQuery);

type WebhookRow = Pick<WebhooksTable, 'id' | 'url' | 'events' | 'description' | 'secret' | 'created_by'> & {
  enabled: boolean;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
  failing_since: string | null;
};

export const webhookColumns = ['id', 'url', 'events', 'description', 'enabled', 'secret', 'created_by', 'created_at', 'updated_at', 'disabled_at', 'failing_since'] as const;

export function presentWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    disabled_at: toIso(row.disabled_at),
    failing_since: toIso(row.failing_since),
  };
}

/** 422 on `url` when it reaches a private, loopback or link-local address (after DNS), unless allowed. */
async function checkUrl(ctx: Ctx, url: string): Promise<void> {
  try {
    await resolveWebhookHost(new URL(url), ctx.webhooks ?? { allowPrivate: false });
  } catch (err) {
    if (err instanceof PrivateWebhookAddress) throw validationFailed([{ field: 'url', code: 'private_address', message: err.message }]);
    throw err;
  }
}

/** Duplicate patterns are kept once, in the order given. */
const unique = (events: string[]) => [...new Set(events)];

export async function createWebhook(ctx: Ctx, input: z.infer<typeof createWebhookInput>): Promise<z.infer<typeof createdWebhookSchema>> {
  requireConfigWrite(ctx.principal);
  await checkUrl(ctx, input.url);
  const now = ctx.clock().toISOString();
  const row = await ctx.db
    .insertInto('webhooks')
    .values({
      id: newId('wh'),
      org_id: ctx.principal.orgId,
      url: input.url,
      events: unique(input.events),
      description: input.description ?? null,
      secret: newWebhookSecret(),
      created_by: ctx.principal.memberId,
      created_at: now,
      updated_at: now,
    })
    .returning(webhookColumns)
    .executeTakeFirstOrThrow();
  return { ...presentWebhook(row), secret: row.secret };
}

export async function listWebhooks(ctx: Ctx, input: z.infer<typeof listWebhooksInput>): Promise<Page<Webhook>> {
  requireConfigWrite(ctx.principal);
  const scope = ['webhooks', ctx.principal.orgId];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = ctx.db.selectFrom('webhooks').select(webhookColumns).where('org_id', '=', ctx.principal.orgId);
  if (at) q = q.where(before('created_at', 'id', at, 'timestamptz'));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.created_at, id: r.id }), presentWebhook, scope);
}

/** The webhook of the caller's organization, locked for the write when `forUpdate`; 404 otherwise. */
export async function findWebhook(ctx: Ctx, webhookId: string, forUpdate = false): Promise<WebhookRow> {
  let q = ctx.db.selectFrom('webhooks').select(webhookColumns).where('org_id', '=', ctx.principal.orgId).where('id', '=', webhookId);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('webhook', webhookId);
  return row;
}

export async function getWebhook(ctx: Ctx, input: z.infer<typeof webhookIdInput>): Promise<Webhook> {
  requireConfigWrite(ctx.principal);
  return presentWebhook(await findWebhook(ctx, input.id));
}

/**
 * Changes a webhook. Enabling one that was disabled (by a person, or after 3 days of
 * failures) clears its failure streak; its waiting deliveries then go out in order.
 */
export async function updateWebhook(ctx: Ctx, input: z.infer<typeof updateWebhookInput>): Promise<Webhook> {
  requireConfigWrite(ctx.principal);
  const row = await findWebhook(ctx, input.id, true);
  if (input.url !== undefined && input.url !== row.url) await checkUrl(ctx, input.url);
  const now = ctx.clock().toISOString();
  const enabling = input.enabled === true && !row.enabled;
  const disabling = input.enabled === false && row.enabled;
  const updated = await ctx.db
    .updateTable('webhooks')
    .set({
      ...(input.url !== undefined && { url: input.url }),
      ...(input.events !== undefined && { events: unique(input.events) }),
      ...(input.description !== undefined && { description: input.description }),
      ...(enabling && { enabled: true, disabled_at: null, failing_since: null }),
      ...(disabling && { enabled: false, disabled_at: now }),
      updated_at: now,
    })
    .where('org_id', '=', ctx.principal.orgId)
    .where('id', '=', row.id)
    .returning(webhookColumns)
    .executeTakeFirstOrThrow();
  return presentWebhook(updated);
}

/** Deletes a webhook with its deliveries (those not yet sent are never sent). */
export async function deleteWebhook(ctx: Ctx, input: z.infer<typeof webhookIdInput>): Promise<void> {
  requireConfigWrite(ctx.principal);
  const deleted = await ctx.db.deleteFrom('webhooks').where('org_id', '=', ctx.principal.orgId).where('id', '=', input.id).executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw notFound('webhook', input.id);
}

/** A new signing secret, shown once; the old one stops at once (deliveries after this are signed with the new one). */
export async function rotateWebhookSecret(ctx: Ctx, input: z.infer<typeof webhookIdInput>): Promise<z.infer<typeof createdWebhookSchema>> {
  requireConfigWrite(ctx.principal);
  await findWebhook(ctx, input.id, true);
  const row = await ctx.db
    .updateTable('webhooks')
    .set({ secret: newWebhookSecret(), updated_at: ctx.clock().toISOString() })
    .where('org_id', '=', ctx.principal.orgId)
    .where('id', '=', input.id)
    .returning(webhookColumns)
    .executeTakeFirstOrThrow();
  return { ...presentWebhook(row), secret: row.secret };
}
