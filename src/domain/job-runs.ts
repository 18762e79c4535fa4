import { z } from 'zod';
import type { Ctx } from './context.js';
import { AppError } from './errors.js';
import { isJobName, JOB_NAMES, type JobResult } from './jobs.js';
import { requireWriter } from './permissions.js';

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
