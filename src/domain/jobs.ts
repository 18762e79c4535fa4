import { z } from 'zod';

// The jobs as the rest of tack knows them: names, results and the runner's shape. Running one
// for a caller is src/domain/job-runs.ts; this file imports nothing of the domain, so the Ctx
// (context.ts) can carry a JobRunner without a loop.

/** The background jobs, by the name `POST /v1/jobs/{name}/run` takes. */
export const JOB_NAMES = ['todo-reminders', 'milestone-summaries'] as const;
export type JobName = (typeof JOB_NAMES)[number];

export function isJobName(name: string): name is JobName {
  return (JOB_NAMES as readonly string[]).includes(name);
}

/** What one run of a job did. */
export const jobResultSchema = z.object({
  sent: z.number().int().describe('Messages posted to Slack (or found already posted by an interrupted run)'),
  skipped: z.number().int().describe('Due, but nobody to send to: owner not linked to Slack, subscriber or milestone gone'),
  failed: z.number().int().describe('Slack refused or did not answer; retried on a later run'),
});
export type JobResult = z.infer<typeof jobResultSchema>;

/** Which part of the data a run covers: one organization (on demand) or all (the schedule). */
export interface JobScope {
  orgId?: string;
}

/**
 * Runs a job now. The server hands one to every Ctx (through the Runtime); the domain knows
 * only this shape, not Slack or the queue.
 */
export type JobRunner = (name: JobName, scope: JobScope) => Promise<JobResult>;
