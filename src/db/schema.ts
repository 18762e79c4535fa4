import type { ColumnType, Generated } from 'kysely';

/**
 * Row types as kysely sees them. Timestamps and dates stay Postgres text (UTC, microseconds
 * kept) so cursors never round through a JS Date; `toIso` formats them for output.
 */
export type Timestamp = ColumnType<string, string | undefined, string>;
export type NullableTimestamp = ColumnType<string | null, string | null | undefined, string | null>;

export interface OrganizationsTable {
  id: string;
  slug: string;
  name: string;
  created_at: Generated<string>;
}

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface MembersTable {
  id: string;
  org_id: string;
  name: string;
  email: string | null;
  role: Role;
  slack_user_id: string | null;
  tz: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface TokensTable {
  id: string;
  org_id: string;
  member_id: string;
  created_by: string;
  name: string;
  token_hash: string;
  hint: string;
  scopes: string[];
  agent: boolean;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: Generated<string>;
}

export interface IdempotencyKeysTable {
  token_id: string;
  operation: string;
  key: string;
  request_hash: string;
  status: number;
  body: string | null;
  created_at: Generated<string>;
}

export interface Database {
  organizations: OrganizationsTable;
  members: MembersTable;
  tokens: TokensTable;
  idempotency_keys: IdempotencyKeysTable;
  slack_deliveries: SlackDeliveriesTable;
  slack_subscriptions: SlackSubscriptionsTable;
}

export interface SlackDeliveriesTable {
  identity: string;
  kind: 'event' | 'command' | 'action' | 'other';
  received_at: Generated<string>;
}

export type SlackCadence = 'daily' | 'weekly';

export interface SlackSubscriptionsTable {
  id: string;
  org_id: string;
  milestone_ref: string;
  channel_id: string;
  cadence: SlackCadence;
  tz: string;
  created_by: string;
  last_sent_period: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}
