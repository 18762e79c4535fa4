import { jobResultSchema } from '../domain/jobs.js';
import { runJob, runJobInput } from '../domain/job-runs.js';
import { defineOperation } from './operation.js';

export const jobOperations = [
  defineOperation({
    name: 'runJob',
    summary: 'Run a background job now for your organization (todo-reminders or milestone-summaries) and say what it did',
    group: 'jobs',
    method: 'POST',
    path: '/jobs/{name}/run',
    scope: 'replay',
    params: runJobInput,
    output: jobResultSchema.describe('What the run did'),
    // A job sends only what is due and not sent yet: running it again sends nothing twice.
    idempotent: true,
    // It posts to Slack.
    openWorld: true,
    ownTransactions: true,
    run: (ctx, input) => runJob(ctx, input),
  }),
];
