import type { SqlMigration } from '../migration.js';

/**
 * The web app's sign-in (contract §8). A sign-in link is a one-time code, kept as its
 * SHA-256 only, valid 15 minutes; redeeming it sets `used_at` in the same statement that
 * checks it, so a code signs in once. A session is a browser's cookie, kept as its SHA-256
 * only; it lives while it is used (`last_used_at` within 30 days). Both go with their member.
 */
export const webSessions: SqlMigration = {
  name: '0008-web-sessions',
  up: [
    `create table signin_links (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      member_id text not null references members(id) on delete cascade,
      created_by text not null,
      code_hash text not null unique,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    )`,
    `create index signin_links_expires on signin_links (expires_at)`,
    `create table sessions (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      member_id text not null references members(id) on delete cascade,
      secret_hash text not null unique,
      user_agent text,
      created_at timestamptz not null default now(),
      last_used_at timestamptz not null default now()
    )`,
    `create index sessions_member_created on sessions (member_id, created_at desc, id desc)`,
    `create index sessions_last_used on sessions (last_used_at)`,
  ],
};
