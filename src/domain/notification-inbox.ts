import { z } from 'zod';
import type { Ctx } from './context.js';
import { NOTIFICATION_KINDS } from './notification-kinds.js';
import { notificationItemColumns, presentItem } from './notification-batches.js';
import { requireScope } from './permissions.js';

/**
 * A member's own notifications, as App Home shows them: how many are unread and the latest
 * ones. Marked read when the member opens App Home (all of them up to then) or clicks a DM's
 * button (that one).
 */

export const notificationSchema = z.object({
  id: z.string(),
  kind: z.enum(NOTIFICATION_KINDS),
  card_id: z.string().nullable(),
  card_ref: z.string().nullable(),
  card_title: z.string(),
  actor_name: z.string(),
  detail: z.string(),
  created_at: z.string(),
  read_at: z.string().nullable(),
});

export const listNotificationsInput = z.object({ limit: z.number().int().min(1).max(50) });
export const notificationListSchema = z.object({ unread: z.number().int(), notifications: z.array(notificationSchema) });
export type NotificationList = z.infer<typeof notificationListSchema>;

/** The caller's unread count and latest `limit` notifications, newest first. */
export async function listNotifications(ctx: Ctx, input: z.infer<typeof listNotificationsInput>): Promise<NotificationList> {
  const { orgId, memberId } = ctx.principal;
  const mine = ctx.db.selectFrom('notifications').where('org_id', '=', orgId).where('member_id', '=', memberId);
  const [count, rows] = await Promise.all([
    mine.select((eb) => eb.fn.countAll<string>().as('n')).where('read_at', 'is', null).executeTakeFirst(),
    mine.select(notificationItemColumns).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(input.limit).execute(),
  ]);
  return { unread: Number(count?.n ?? 0), notifications: rows.map(presentItem) };
}

export const markNotificationsReadInput = z.object({
  ids: z.array(z.string().max(64)).max(100).optional().describe('These notifications; absent: every unread one'),
});

/** Marks the caller's notifications read (those named, else all); returns how many were unread. */
export async function markNotificationsRead(ctx: Ctx, input: z.infer<typeof markNotificationsReadInput>): Promise<{ marked: number }> {
  requireScope(ctx.principal, 'write');
  if (input.ids !== undefined && input.ids.length === 0) return { marked: 0 };
  let q = ctx.db
    .updateTable('notifications')
    .set({ read_at: ctx.clock().toISOString() })
    .where('org_id', '=', ctx.principal.orgId)
    .where('member_id', '=', ctx.principal.memberId)
    .where('read_at', 'is', null);
  if (input.ids !== undefined) q = q.where('id', 'in', input.ids);
  const result = await q.executeTakeFirst();
  return { marked: Number(result.numUpdatedRows) };
}
