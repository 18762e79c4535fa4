import { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { webClientOptions } from './bolt-app.js';
import { boltLogger } from './bolt-logger.js';

/**
 * The Web API client the jobs post with: the bot token, `SLACK_API_URL`, and the same
 * bounded retries as the Slack app's own client (a 429 waits its Retry-After, then retries).
 * Undefined when no bot token is configured.
 */
export function slackWebClient(config: Config, log: Logger): WebClient | undefined {
  const token = config.slack.botToken;
  if (!token) return undefined;
  return new WebClient(token, { ...webClientOptions(config.slack.apiUrl), logger: boltLogger(log) });
}
