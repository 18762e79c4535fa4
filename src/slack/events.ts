import type { App } from '@slack/bolt';
import type { SlackDeps } from './deps.js';
import { publishHome } from './home.js';
import { unfurlLinks, type LinkShared } from './unfurls.js';

/** The bot events tack subscribes to (manifest.yml `settings.event_subscriptions.bot_events`). */
export const SLACK_EVENTS = ['app_home_opened', 'link_shared'] as const;

/**
 * Events (Bolt acknowledges them at once): the Home tab is published whenever someone opens
 * it, and links to the web app are unfurled.
 */
export function registerEvents(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, client, event.user, deps.log.child({ slack_event: 'app_home_opened', slack_user: event.user }), undefined, true);
  });
  app.event('link_shared', async ({ event, client }) => {
    await unfurlLinks(deps, client, event as LinkShared, deps.log.child({ slack_event: 'link_shared', slack_user: event.user }));
  });
}
