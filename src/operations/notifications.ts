import { z } from 'zod';
import {
  listNotifications,
  listNotificationsInput,
  markNotificationsRead,
  markNotificationsReadInput,
  notificationListSchema,
} from '../domain/notification-inbox.js';
import { defineCoreOperation } from './operation.js';

/**
 * A member's personal notifications, as Slack's App Home shows them (contract §11 fixes the
 * DM and the settings, no /v1 endpoint): cores without an HTTP binding, like the Slack-only
 * operations in slack.ts. Offering them on /v1, MCP and the CLI is a binding and a line in
 * the table.
 */
export const listNotificationsOp = defineCoreOperation({
  name: 'listNotifications',
  summary: 'Your unread notifications count and your latest notifications, newest first',
  group: 'me',
  scope: 'read',
  readOnly: true,
  input: listNotificationsInput,
  output: notificationListSchema,
  run: (ctx, input) => listNotifications(ctx, input),
});

export const markNotificationsReadOp = defineCoreOperation({
  name: 'markNotificationsRead',
  summary: 'Mark your notifications read (those named, else all)',
  group: 'me',
  scope: 'write',
  idempotent: true,
  input: markNotificationsReadInput,
  output: z.object({ marked: z.number().int() }),
  run: (ctx, input) => markNotificationsRead(ctx, input),
});
