import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Runtime } from '../operations/execute.js';

/** What the Slack face needs from the server. */
export interface SlackDeps {
  config: Config;
  runtime: Runtime;
  log: Logger;
}
