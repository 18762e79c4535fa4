import { z } from 'zod';

/**
 * The kinds of personal notifications (contract §11) and a member's settings of them, apart
 * from notifications.ts because every read of a member shows the settings (member-schema.ts
 * imports this, and nothing that imports it back).
 */
export const NOTIFICATION_KINDS = ['assigned', 'mentioned', 'card_activity', 'agent_requests'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

const descriptions: Record<NotificationKind, string> = {
  assigned: 'A card is assigned to you',
  mentioned: "A comment or a card's description mentions you",
  card_activity: 'A card you are assigned is moved or commented on by someone else',
  agent_requests: "An agent's move to done was refused on a card you are assigned (or, nobody assigned, on your board): a DM with a Move to done button",
};

/** What every member read shows: each kind on (true, the default) or off. */
export const notificationSettingsSchema = z
  .object({
    assigned: z.boolean().describe(descriptions.assigned),
    mentioned: z.boolean().describe(descriptions.mentioned),
    card_activity: z.boolean().describe(descriptions.card_activity),
    agent_requests: z.boolean().describe(descriptions.agent_requests),
  })
  .describe('Personal notifications by Slack DM, per kind (each true unless turned off)');
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

/** What updateMember takes: any of the kinds; those left out keep their setting. */
export const notificationSettingsPatch = z
  .strictObject({
    assigned: z.boolean().optional().describe(descriptions.assigned),
    mentioned: z.boolean().optional().describe(descriptions.mentioned),
    card_activity: z.boolean().optional().describe(descriptions.card_activity),
    agent_requests: z.boolean().optional().describe(descriptions.agent_requests),
  })
  .describe('Turn kinds of personal notifications on (true) or off (false); kinds left out keep their setting');

/** The settings as stored (only the kinds ever set) read as all four, each on unless turned off. */
export function notificationSettings(stored: unknown): NotificationSettings {
  const set = stored !== null && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  return {
    assigned: set.assigned !== false,
    mentioned: set.mentioned !== false,
    card_activity: set.card_activity !== false,
    agent_requests: set.agent_requests !== false,
  };
}

export function isNotificationKind(text: string): text is NotificationKind {
  return (NOTIFICATION_KINDS as readonly string[]).includes(text);
}
