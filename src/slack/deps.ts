import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Runtime } from '../operations/execute.js';
import type { DeliveryRecorder } from './delivery-recorder.js';
import type { WorkQueue } from './work-queue.js';

/** What the Slack face needs from the server. */
export interface SlackDeps {
  config: Config;
  runtime: Runtime;
  log: Logger;
  /** Records deliveries before their ack (on a small pool of its own); on the runtime's db by default. */
  deliveries?: DeliveryRecorder;
  /** Where commands wait and run after their ack; `commandQueue()` by default. */
  commands?: WorkQueue;
}
