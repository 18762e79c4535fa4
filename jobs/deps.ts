import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Config } from '../src/config.js';
import type { Db } from '../src/domain/context.js';
import { organizationIdBySlug } from '../src/domain/due-reminders.js';
import type { JobResult, JobScope } from '../src/domain/jobs.js';
import type { Runtime } from '../src/operations/execute.js';

/**
 * What a job needs: everything it touches is handed in, so tests and the bench run it as is.
 * It is a `Runtime` (db and clock): what a job changes goes through `writeTransaction`, the
 * one write path, and what it asks of tack through `callOperation`.
 */
export interface JobDeps {
  db: Db;
  /** The Web API client; undefined when Slack is not configured (then nothing is sent). */
  slack: WebClient | undefined;
  clock: () => Date;
  config: Pick<Config, 'reminderHour'> & { slack: Pick<Config['slack'], 'org'> };
  log: Logger;
  /**
   * True once the process is stopping: a sweep sends what it has claimed and claims no more
   * (the rest stay due for the next sweep, in this process or another).
   */
  stopping?: () => boolean;
}

/** A job: one sweep over what is due now, returning what it did. */
export type JobProcessor = (deps: JobDeps, scope?: JobScope) => Promise<JobResult>;

export function emptyResult(): JobResult {
  return { sent: 0, skipped: 0, failed: 0 };
}

/** The organization the Slack workspace works in (`SLACK_ORG`), unless the scope names another. */
export async function slackOrgId(deps: JobDeps, scope: JobScope): Promise<string | undefined> {
  const orgId = await organizationIdBySlug(deps.db, deps.config.slack.org);
  if (!orgId || (scope.orgId !== undefined && scope.orgId !== orgId)) return undefined;
  return orgId;
}

/** Runs `fn` over `items` with at most `limit` at a time; once `stop` says so, starts no more. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>, stop?: () => boolean): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length && !stop?.()) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
