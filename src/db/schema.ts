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

export interface BoardsTable {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  ref_prefix: string;
  gated: Generated<boolean>;
  next_ref: Generated<number>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export type WorkflowStatus = 'backlog' | 'in_progress' | 'in_review' | 'done';

export interface CardsTable {
  id: string;
  org_id: string;
  board_id: string;
  number: number;
  title: string;
  workflow_status: Generated<WorkflowStatus>;
  due_on: string | null;
  milestone_id: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface CardAssigneesTable {
  card_id: string;
  member_id: string;
  position: number;
}

export interface CriteriaTable {
  id: string;
  org_id: string;
  card_id: string;
  position: number;
  title: string;
  done: Generated<boolean>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export type Priority = 'urgent' | 'high' | 'medium' | 'low';

export interface TodosTable {
  id: string;
  member_id: string;
  org_id: string | null;
  title: string;
  priority: Generated<Priority>;
  due_on: string | null;
  card_id: string | null;
  criterion_id: string | null;
  done: Generated<boolean>;
  done_at: NullableTimestamp;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export type MilestoneKind = 'sprint' | 'deadline';

export interface MilestonesTable {
  id: string;
  org_id: string;
  ref: string;
  name: string;
  kind: MilestoneKind;
  ends_on: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface Database {
  organizations: OrganizationsTable;
  members: MembersTable;
  tokens: TokensTable;
  idempotency_keys: IdempotencyKeysTable;
  boards: BoardsTable;
  cards: CardsTable;
  card_assignees: CardAssigneesTable;
  criteria: CriteriaTable;
  todos: TodosTable;
  milestones: MilestonesTable;
}
