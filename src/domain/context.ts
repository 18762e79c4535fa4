import type { Kysely } from 'kysely';
import type { Database, Role } from '../db/schema.js';
import type { JobRunner } from './jobs.js';

export const SCOPES = ['read', 'write', 'replay', 'config:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: a token's holder, or a linked Slack user (a human without a token). */
export interface Principal {
  orgId: string;
  memberId: string;
  tokenId: string | null;
  role: Role;
  scopes: readonly Scope[];
  agent: boolean;
  /**
   * Who the member is, as read when the token was authenticated (cached with it, dropped on
   * any member or token change); absent for principals built elsewhere (Slack).
   */
  profile?: Profile;
}

export interface Profile {
  member: {
    id: string;
    org_id: string;
    name: string;
    email: string | null;
    role: Role;
    slack_user_id: string | null;
    tz: string | null;
    created_at: string;
  };
  org: { id: string; slug: string; name: string };
}

/** What every domain function gets. Inside a write, `db` is the write's transaction. */
export interface Ctx {
  db: Kysely<Database>;
  clock: () => Date;
  principal: Principal;
  /** Base of snippets' public links (config PUBLIC_BASE_URL, no trailing slash); set by `execute`. */
  publicBaseUrl?: string;
  /** Runs a background job now (`runJob`); set by `execute` when the server has jobs. */
  jobs?: JobRunner;
}
