import type { SqlMigration } from '../migration.js';

/** Organizations, members, tokens and idempotency records. */
export const platform: SqlMigration = {
  name: '0001-platform',
  up: [
    `create table organizations (
      id text primary key,
      slug text not null unique,
      name text not null,
      created_at timestamptz not null default now()
    )`,
    `create table members (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      name text not null,
      email text,
      role text not null check (role in ('owner','admin','member','viewer')),
      slack_user_id text,
      tz text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create unique index members_org_email on members (org_id, lower(email)) where email is not null`,
    `create unique index members_org_slack on members (org_id, slack_user_id) where slack_user_id is not null`,
    `create index members_org_created on members (org_id, created_at desc, id desc)`,
    `create table tokens (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      member_id text not null references members(id) on delete cascade,
      created_by text not null,
      name text not null,
      token_hash text not null unique,
      hint text not null,
      scopes text[] not null,
      agent boolean not null default false,
      expires_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    )`,
    `create index tokens_org_created on tokens (org_id, created_at desc, id desc)`,
    `create table idempotency_keys (
      token_id text not null,
      operation text not null,
      key text not null,
      request_hash text not null,
      status integer not null,
      body text,
      created_at timestamptz not null default now(),
      primary key (token_id, operation, key)
    )`,
    `create index idempotency_keys_created on idempotency_keys (created_at)`,
  ],
};
