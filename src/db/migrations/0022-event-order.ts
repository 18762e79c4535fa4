import type { SqlMigration } from '../migration.js';

/**
 * Events in commit order without a global lock (contract §10: resume loses and repeats nothing).
 *
 * Each event, and each webhook delivery made with it, records the id of the transaction that
 * wrote it (`pg_current_xact_id()`, by default). Readers that must miss nothing (the live feed,
 * a stream's catch-up and `Last-Event-ID` resume, the webhook claim) order by `(xid, seq)` and
 * take only rows whose `xid` is below the oldest transaction still writing on this database
 * (`eventHorizon`, src/domain/event-horizon.ts): every transaction older than that has ended,
 * so no row can later commit before one already read.
 * `seq` alone cannot say so: a transaction still running may hold a smaller `seq` than one
 * already committed. Rows made before this migration all get its own xid, and keep their
 * `seq` order among themselves.
 */
export const eventOrder: SqlMigration = {
  name: '0022-event-order',
  up: [
    `alter table events add column xid xid8 not null default pg_current_xact_id()`,
    `create index events_order on events (xid, seq)`,
    `alter table webhook_deliveries add column xid xid8 not null default pg_current_xact_id()`,
    `drop index webhook_deliveries_open`,
    `create index webhook_deliveries_open on webhook_deliveries (webhook_id, xid, position) where status in ('pending', 'sending')`,
  ],
};
