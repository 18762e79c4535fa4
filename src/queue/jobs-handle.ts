import type { JobName, JobResult } from '../domain/jobs.js';

/** Runs one job over every organization (what a schedule tick does). */
export type RunJob = (name: JobName) => Promise<JobResult>;

/** Running jobs, however they are run. */
export interface JobsHandle {
  mode: 'bullmq' | 'in-process' | 'off';
  /** Events were committed (the events NOTIFY): wakes the notifier (personal notifications) at once. */
  eventsCommitted?(): void;
  /** Stops scheduling; waits for a run in progress to finish. */
  close(): Promise<void>;
}
