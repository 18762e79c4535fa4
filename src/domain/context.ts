import type { Db } from '../db/connect.js';
import type { Role } from '../db/schema.js';
import type { EventsWritten } from '../db/event-announcer.js';
import type { Member } from './member-schema.js';
import type { JobRunner } from './jobs.js';
import type { WebhookPolicy } from './webhook-addresses.js';

/**
 * The database handle every domain function takes (inside a write, the write's transaction).
 * The faces hold it and hand it down without importing src/db.
 */
export type { Db };

export const SCOPES = ['read', 'write', 'replay', 'config:write'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * How a caller arrived (contract §10, an event's `actor.face`): `web` (a session), `slack`,
 * `mcp` (/mcp, or `tack mcp`, which says so in its User-Agent), `cli` (the tack CLI's
 * User-Agent), `api` (any other /v1 client), `job` or `github`.
 */
export const FACES = ['web', 'slack', 'mcp', 'cli', 'api', 'job', 'github'] as const;
export type Face = (typeof FACES)[number];

/** Who is calling: a token's holder, a signed-in browser, or a linked Slack user (a human without a token). */
export interface Principal {
  orgId: string;
  memberId: string;
  tokenId: string | null;
  /** The web session the caller signed in with (a browser's cookie); absent for tokens and Slack. */
  sessionId?: string;
  /** The role it acts with: the member's current role, capped by the credential's ceiling. */
  role: Role;
  scopes: readonly Scope[];
  agent: boolean;
  /** How it arrived (see `Face`); absent: `api`. Set per request by the face, never cached with the token. */
  face?: Face;
  /**
   * Someone outside tack that no member is (a GitHub user no member's `github_login` names):
   * the name events give the actor, whose `member_id` is then null. `memberId` is empty then.
   */
  externalName?: string;
  /**
   * What the token or session is held to, and hands on to what it makes (contract §9);
   * absent for a Slack user, who holds no credential (the member's own role, no end).
   */
  limits?: CredentialLimits;
  /**
   * Who the member is, as read when the token was authenticated (cached with it, dropped on
   * any member or token change); absent for principals built elsewhere (Slack).
   */
  profile?: Profile;
  /**
   * The zone of the linked Slack profile (`users.info`), for a Slack user: the time-zone rule
   * (src/domain/time-zone.ts) falls back to it when the member set no zone of their own. Set by
   * the Slack face only; asked lazily, at most once per Slack request.
   */
  slackProfileZone?: () => Promise<string | undefined>;
  /**
   * A key only the token's (or session cookie's) holder can reproduce (an HMAC keyed by the secret itself), so
   * stored idempotent responses (a new token's secret, say) are kept encrypted; absent for
   * principals without a token.
   */
  replaySecret?: Buffer;
}

export interface Profile {
  member: Member;
  org: { id: string; slug: string; name: string };
}

/** What every domain function gets. Inside a write, `db` is the write's transaction. */
export interface Ctx {
  db: Db;
  clock: () => Date;
  principal: Principal;
  /** Base of snippets' public links (config PUBLIC_BASE_URL, no trailing slash); set by `execute`. */
  publicBaseUrl?: string;
  /** Where the web app is opened (config APP_URL, no trailing slash), for sign-in links; set by `execute`. */
  appUrl?: string;
  /** Runs a background job now (`runJob`); set by `execute` when the server has jobs. */
  jobs?: JobRunner;
  /** How webhook URLs are checked (WEBHOOK_ALLOW_PRIVATE, the resolver); set by `execute`. Absent: private addresses refused. */
  webhooks?: WebhookPolicy;
  /**
   * Takes what the write's events statement recorded, to announce it after the commit; set by
   * `execute` when the process announces (`Runtime.eventsCommitted`). Absent: the statement
   * sends its NOTIFY itself.
   */
  eventsWritten?: (written: EventsWritten) => void;
  /**
   * Set by `withEvents` for a write whose description says `answersBefore`: the write hands
   * over the thing it changes as its read operation answered it before the change (taken in
   * the write's own statement), so no read of it goes before the write. Called before the
   * write changes anything that thing links to (a mirrored todo's criterion), which is read then.
   */
  reportBefore?: (before: object) => Promise<void>;
  /**
   * False when the write's organization had no enabled webhook when the write began (read with
   * the caller, in the write's first statement): its events then queue no deliveries, and their
   * statement leaves that clause out. A webhook created while the write runs misses its events,
   * as one created while the events statement runs always could. Unset: not known, looked up.
   */
  orgWebhooks?: boolean;
}

/**
 * What a credential is held to (contract §9), read with it and handed on to whatever it
 * makes, so that nothing made from it carries more: a token it makes, a sign-in link it asks
 * for, the session that link becomes, and anything that session makes in turn.
 */
export interface CredentialLimits {
  /**
   * The token it hangs on: a token's own id; for a session, the token that asked for its
   * link (or its maker's). Once that token is revoked or expired, the session ends.
   */
  tokenId: string | null;
  /** The most it may use; null: whatever the member's role allows (a link from Slack's `/tack login`). */
  scopes: readonly Scope[] | null;
  /**
   * Made for another member: the role of the member who made it, above which it never acts,
   * whatever its member becomes. Null: it follows its member's own role.
   */
  ceiling: Role | null;
  /** When it ends however it is used (its token's `expires_at`), in ms; null: never. */
  expiresAt: number | null;
}
