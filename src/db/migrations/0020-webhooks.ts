import type { SqlMigration } from '../migration.js';

/**
 * Webhooks (contract §10) and their outbox. A webhook is an endpoint of an organization with
 * the event types it wants and its signing secret (kept as given: signing needs it).
 *
 * `webhook_deliveries` is one row per attempt, and the retry schedule itself: a row is
 * `pending` until due (`next_attempt_at`), `sending` while a worker holds its lease (a worker
 * that dies mid-delivery leaves the lease to expire, and the same attempt is sent again), then
 * `succeeded` or `failed`; a failed attempt that will be retried names when in its
 * `next_attempt_at`, and the next attempt is a new row made in the same statement's
 * transaction. `position` is the order of first attempts (a retry keeps its first attempt's),
 * so one endpoint gets its events in order. Rows of an event are made in the transaction
 * that records the event, so a crash or a Redis flush loses none.
 */
export const webhooks: SqlMigration = {
  name: '0020-webhooks',
  up: [
    `create table webhooks (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      url text not null,
      events text[] not null,
      description text,
      enabled boolean not null default true,
      secret text not null,
      created_by text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      disabled_at timestamptz,
      failing_since timestamptz
    )`,
    `create index webhooks_org_created on webhooks (org_id, created_at desc, id desc)`,
    `create sequence webhook_delivery_positions`,
    `create table webhook_deliveries (
      id text primary key,
      webhook_id text not null references webhooks(id) on delete cascade,
      event_id text not null,
      event_seq bigint not null references events(seq) on delete cascade,
      attempt integer not null,
      position bigint not null,
      status text not null check (status in ('pending', 'sending', 'succeeded', 'failed')),
      response_status integer,
      duration_ms integer,
      error text,
      next_attempt_at timestamptz,
      lease_until timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create index webhook_deliveries_listed on webhook_deliveries (webhook_id, created_at desc, id desc)`,
    // The open attempts: what a worker claims (due ones) and what must go first (earlier positions).
    `create index webhook_deliveries_open on webhook_deliveries (webhook_id, position) where status in ('pending', 'sending')`,
    `create index webhook_deliveries_event on webhook_deliveries (event_seq)`,
    `create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status in ('pending', 'sending')`,
  ],
};
