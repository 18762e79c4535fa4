import { App, type Receiver } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import { registerActions } from './actions.js';
import { boltLogger } from './bolt-logger.js';
import { registerCommands } from './commands.js';
import { dedupeRetries } from './dedupe.js';
import type { SlackDeps } from './deps.js';

/** Web API client options: `SLACK_API_URL` (tests point it at a local fake), bounded retries. */
export function webClientOptions(apiUrl: string | undefined): WebClientOptions {
  return {
    ...(apiUrl ? { slackApiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {}),
    // A few quick retries (and Retry-After on 429); not Slack's default half hour.
    retryConfig: { retries: 3, factor: 2, minTimeout: 200, maxTimeout: 2_000 },
    timeout: 10_000,
  };
}

export type Transport = { receiver: Receiver } | { socketMode: { appToken: string } };

/**
 * The Bolt app: retries dropped first, then the slash commands and the Done button.
 * One workspace, one bot token: `authorize` hands it out without calling auth.test, so
 * nothing reaches Slack before a delivery needs it (and we subscribe to no events, so
 * Bolt's ignore-self filter, which needs the bot's own ids, has nothing to do).
 */
export function createBoltApp(deps: SlackDeps, botToken: string, transport: Transport): App {
  const logger = boltLogger(deps.log);
  const common = {
    logger,
    authorize: async () => ({ botToken }),
    clientOptions: webClientOptions(deps.config.slack.apiUrl),
    ignoreSelf: false,
    convoStore: false as const,
  };
  const app =
    'receiver' in transport
      ? new App({ ...common, receiver: transport.receiver })
      : new App({ ...common, socketMode: true, appToken: transport.socketMode.appToken });
  // Rethrow so the receiver, which knows the delivery, logs it once (Bolt's default also logs).
  app.error(async (err) => {
    throw err;
  });
  app.use(dedupeRetries(deps.ackDb ?? deps.runtime.db, deps.log.child({ component: 'slack' })));
  registerCommands(app, deps);
  registerActions(app, deps);
  return app;
}
