import { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { webClientOptions } from './bolt-app.js';
import { boltLogger } from './bolt-logger.js';

/**
 * The Web API client the jobs post with: the bot token, `SLACK_API_URL`, and no retries of
 * its own (see `webClientOptions`: the claim table retries, after checking for the first
 * attempt's message). Undefined when no bot token is configured.
 */
export function slackWebClient(config: Config, log: Logger): WebClient | undefined {
  const token = config.slack.botToken;
  if (!token) return undefined;
  return new WebClient(token, { ...webClientOptions(config.slack.apiUrl), logger: boltLogger(log) });
}
