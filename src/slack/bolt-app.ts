import { App, SocketModeReceiver, type Receiver } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { registerActions } from './actions.js';
import { boltLogger } from './bolt-logger.js';
import { commandQueue, refuseCommandsWhenBusy, registerCommands } from './commands.js';
import { dedupeRetries } from './dedupe.js';
import { DeliveryRecorder } from './delivery-recorder.js';
import type { SlackDeps } from './deps.js';
import { registerEvents } from './events.js';
import { registerTodoModal } from './todo-modal.js';
import { registerCardModal } from './card-modal.js';
import { registerUnfurlActions } from './unfurl-actions.js';

/*
 * Three Web API clients, each with options of its own (they must not share one object:
 * Slack's Socket Mode client writes its reconnect policy into the options it is given).
 */

function apiUrlOption(apiUrl: string | undefined): WebClientOptions {
  return apiUrl ? { slackApiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {};
}

/**
 * The client tack posts new messages with (the jobs, a subscription's confirmation): never
 * a retry. A post that timed out may have arrived, and Slack has no idempotency key, so
 * only the claim table (`slack_posts`) tries again, after looking for the first attempt's
 * message. A 429 comes back at once with its Retry-After, for the claim table to honour.
 */
export function webClientOptions(apiUrl: string | undefined): WebClientOptions {
  return { ...apiUrlOption(apiUrl), retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: 10_000 };
}

/**
 * Bolt's own client, for what is safe to repeat: profile lookups (users.info), replacing a
 * clicked message (chat.update), an ephemeral note, modals, the Home tab. A few quick retries
 * (not Slack's default half hour). A 429 is refused at once, never waited out: the client
 * would pause its whole queue for the Retry-After, and every other person's modal (whose
 * trigger_id lives 3 seconds) would fail behind one refreshed Home tab. Each caller decides
 * what a refusal means (a Home refresh is skipped, a lookup waits a short Retry-After itself).
 */
function boltClientOptions(apiUrl: string | undefined): WebClientOptions {
  return { ...apiUrlOption(apiUrl), retryConfig: { retries: 3, factor: 2, minTimeout: 200, maxTimeout: 2_000 }, rejectRateLimitedCalls: true, timeout: 10_000 };
}

/**
 * The Socket Mode client's: where Slack is, and nothing else, so its own policy for
 * `apps.connections.open` (many retries, backing off) rides out a Slack outage.
 */
function socketClientOptions(apiUrl: string | undefined): WebClientOptions {
  return apiUrlOption(apiUrl);
}

export type Transport = { receiver: Receiver } | { socketMode: { appToken: string } };

/**
 * The Bolt app: commands refused while too many wait, then retries dropped, then the slash
 * commands, the buttons and selects, the todo modal and the events (Home tab, unfurls). One workspace, one bot token:
 * `authorize` hands it out without calling auth.test, so nothing reaches Slack before a
 * delivery needs it. Bolt's ignore-self filter, which needs the bot's own ids, is off: the
 * events tack takes (app_home_opened, link_shared) are never the bot's own doing.
 */
export function createBoltApp(deps: SlackDeps, botToken: string, transport: Transport): App {
  const logger = boltLogger(deps.log);
  const apiUrl = deps.config.slack.apiUrl;
  const receiver =
    'receiver' in transport
      ? transport.receiver
      : new SocketModeReceiver({ appToken: transport.socketMode.appToken, logger, installerOptions: { clientOptions: socketClientOptions(apiUrl) } });
  const app = new App({
    logger,
    authorize: async () => ({ botToken }),
    clientOptions: boltClientOptions(apiUrl),
    ignoreSelf: false,
    convoStore: false as const,
    receiver,
  });
  // Rethrow so the receiver, which knows the delivery, logs it once (Bolt's default also logs).
  app.error(async (err) => {
    throw err;
  });
  const poster = new WebClient(botToken, { ...webClientOptions(apiUrl), logger });
  const log = deps.log.child({ component: 'slack' });
  const commands = deps.commands ?? commandQueue();
  app.use(refuseCommandsWhenBusy(commands, log));
  app.use(dedupeRetries(deps.deliveries ?? new DeliveryRecorder(deps.runtime.db, 1), log));
  registerCommands(app, deps, poster, commands);
  registerActions(app, deps);
  registerTodoModal(app, deps);
  registerCardModal(app, deps);
  registerUnfurlActions(app, deps);
  registerEvents(app, deps);
  return app;
}
