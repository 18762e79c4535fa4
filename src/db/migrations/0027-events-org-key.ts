import type { SqlMigration } from '../migration.js';

/**
 * Events keep their organization's id without a foreign key. Every event insert checked it
 * with a KEY SHARE lock on the organization's row, which all of an organization's writers
 * share: under concurrent writes each lock became a MultiXact of every writer holding it, and
 * the check cost the events statement a fifth of its rate (pgbench, 8 clients: 4,510
 * statements a second with it, 5,820 without; bench/README.md). An event's organization is
 * the writer's own, read with the caller in the same transaction; organizations are never
 * deleted by tack, and events leave within 90 days (the hourly prune) in any case.
 */
export const eventsOrgKey: SqlMigration = {
  name: '0027-events-org-key',
  up: [`alter table events drop constraint if exists events_org_id_fkey`],
};
