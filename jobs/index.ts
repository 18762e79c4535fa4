import type { JobName, JobRunner } from '../src/domain/jobs.js';
import type { JobDeps, JobProcessor } from './deps.js';
import { postMilestoneSummaries } from './milestone-summaries.js';
import { sendTodoReminders } from './todo-reminders.js';

export type { JobDeps, JobProcessor } from './deps.js';

/** Every job by name: the schedule, the in-process timer and `runJob` all run these. */
export const JOBS: Readonly<Record<JobName, JobProcessor>> = {
  'todo-reminders': sendTodoReminders,
  'milestone-summaries': postMilestoneSummaries,
};

/** `runJob`'s way in: runs a job now with the server's dependencies. */
export function jobRunner(deps: JobDeps): JobRunner {
  return (name, scope) => JOBS[name](deps, scope);
}
