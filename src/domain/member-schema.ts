import { z } from 'zod';
import { ROLES } from '../vocabulary.js';
import { notificationSettingsSchema } from './notification-kinds.js';

/**
 * A member and its organization as every answer shows them. Apart from members.ts (the rules
 * about members), because the caller's own profile (`Principal.profile`, src/domain/context.ts)
 * is one of them, and context.ts imports nothing that imports it back.
 */
export const memberSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  role: z.enum(ROLES),
  slack_user_id: z.string().nullable(),
  tz: z.string().nullable(),
  reminder_hour: z.number().int().nullable().describe('Local hour (0 to 23, in tz) of due-todo reminders; null: the server default, REMINDER_HOUR'),
  github_login: z.string().nullable().describe('GitHub login: pull requests and merges by this GitHub user are shown as this member (contract §12)'),
  notifications: notificationSettingsSchema,
  created_at: z.string(),
});
export type Member = z.infer<typeof memberSchema>;

export const orgSchema = z.object({ id: z.string(), slug: z.string(), name: z.string() });
