import { z } from 'zod';
import type { Ctx } from './context.js';
import { AppError } from './errors.js';
import { requireWriter } from './permissions.js';

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

export const runJobInput = z.object({
  name: z.string().trim().min(1).max(64).describe(`The job: ${JOB_NAMES.join(' or ')}`),
});

/**
 * Runs a job at once for the caller's organization and returns what it did. The job itself
 * decides what is due, so running it on demand never sends anything twice.
 */
export async function runJob(ctx: Ctx, input: z.infer<typeof runJobInput>): Promise<JobResult> {
  requireWriter(ctx.principal);
  if (!isJobName(input.name)) {
    throw new AppError('job_not_found', 404, `No job named ${JSON.stringify(input.name)}; the jobs are ${JOB_NAMES.join(' and ')}.`);
  }
  if (!ctx.jobs) throw new AppError('jobs_unavailable', 503, 'Jobs cannot run on this server right now.');
  return ctx.jobs(input.name, { orgId: ctx.principal.orgId });
}
