import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import type { Runtime } from '../operations/execute.js';

/** What the Slack face needs from the server. */
export interface SlackDeps {
  config: Config;
  runtime: Runtime;
  log: Logger;
  /** Where a delivery is recorded before its ack (a small pool of its own); the runtime's db by default. */
  ackDb?: Kysely<Database>;
}
