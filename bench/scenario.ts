import type pg from 'pg';
import type { Target } from './measure.js';

export interface BenchContext {
  /** The running tack server. */
  url: string;
  /** Owner token with every scope. */
  token: string;
  /** The bench database, for seeding with SQL. */
  pool: pg.Pool;
  /** Its URL, for scenarios that run tack code against it in the bench process. */
  databaseUrl: string;
  /** The baseline server (bare hello route, raw routes registered with `rawBaselines`). */
  baselineUrl: string;
}

/** A group of measurements: seeds what it needs, then names its load targets. */
export interface Scenario {
  name: string;
  /** Environment the server needs for this scenario (e.g. Slack's), got before it starts. */
  env?(): Promise<Record<string, string>>;
  setup(ctx: BenchContext): Promise<Target[]>;
  /** Measurements that are not request rates (e.g. a sweep's duration); printed as lines. */
  extra?(ctx: BenchContext): Promise<string[]>;
  /** Stops what `env` started, after the server has stopped. */
  close?(): Promise<void>;
}
