import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { EventsWritten } from '../db/event-announcer.js';
import type { JobRunner } from '../domain/jobs.js';
import type { WebhookPolicy } from '../domain/webhook-addresses.js';

/** What running an operation needs from the process: the database, the clock and the process's settings. */
export interface Runtime {
  db: Kysely<Database>;
  clock: () => Date;
  /** Base of snippets' public links, handed to the domain in every Ctx. */
  publicBaseUrl?: string;
  /** Where the web app is opened (sign-in links), handed to the domain in every Ctx. */
  appUrl?: string;
  /** Called after a write commits; `changesAuth` when it changed tokens or members (drop cached principals). */
  afterCommit?: (change: { changesAuth: boolean }) => void;
  /**
   * Announces a write's events after its commit (`eventAnnouncer`); absent, each write's
   * events statement sends its NOTIFY itself, in its transaction.
   */
  eventsCommitted?: (written: EventsWritten) => void;
  /** Runs a background job now (`runJob`); absent where the server runs no jobs. */
  jobs?: JobRunner;
  /** How webhook URLs are checked, handed to the domain in every Ctx. */
  webhooks?: WebhookPolicy;
}
