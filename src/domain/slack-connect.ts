import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, Role } from '../db/schema.js';
import { confirmCaller } from './confirm-caller.js';
import type { Principal } from './context.js';
import { uniqueViolation } from '../db/errors.js';
import { AppError } from './errors.js';
import { newId } from './ids.js';
import { scopesForRole } from './sessions.js';
import { hashToken } from './token-format.js';

/**
 * `/tack connect`: how a Slack user links to a member that e-mail does not link (owners,
 * admins, and anyone whose Slack address is not their confirmed tack one). The Slack user asks
 * in Slack and gets a one-time link (ephemeral, 15 minutes); opened in a browser signed in to
 * tack, it shows what it will link and changes nothing; confirmed there (a form post from
 * tack's own pages), it links that Slack user to the session's member. The link is stored as
 * its code's SHA-256 only and works once.
 */

/** A connect link works once, within this long. */
export const SLACK_CONNECT_TTL_MS = 15 * 60 * 1000;

export const invalidConnectCode = () =>
  new AppError('invalid_slack_connect_code', 400, 'This Slack link was already used, has expired, or is not valid. Run /tack connect in Slack for a new one.');

/** Shape check before any database look-up: 256 random bits, base64url. */
export function isWellFormedConnectCode(code: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(code);
}

export interface SlackConnectLink {
  url: string;
  expires_at: string;
}

/**
 * Makes a connect link for a Slack user, in the organization the workspace works in (slug
 * `orgSlug`); undefined when there is no such organization. `{appUrl}/slack/connect?code=…`.
 */
export async function issueSlackConnectLink(
  db: Kysely<Database>,
  at: { orgSlug: string; slackUserId: string; slackUserName: string | undefined; now: Date; appUrl: string },
): Promise<SlackConnectLink | undefined> {
  const org = await db.selectFrom('organizations').select('id').where('slug', '=', at.orgSlug).executeTakeFirst();
  if (!org) return undefined;
  const code = randomBytes(32).toString('base64url');
  const expiresAt = new Date(at.now.getTime() + SLACK_CONNECT_TTL_MS).toISOString();
  await db
    .insertInto('slack_connect_links')
    .values({
      id: newId('slc'),
      org_id: org.id,
      slack_user_id: at.slackUserId,
      slack_user_name: at.slackUserName ? at.slackUserName.slice(0, 100) : null,
      code_hash: hashToken(code),
      expires_at: expiresAt,
      created_at: at.now.toISOString(),
    })
    .execute();
  return { url: `${at.appUrl}/slack/connect?code=${code}`, expires_at: expiresAt };
}

/** A member as the confirm page names them. */
export interface NamedMember {
  id: string;
  name: string;
  role: Role;
}

/** What confirming a connect link would do, for the signed-in member. */
export interface ConnectPreview {
  slackUserId: string;
  slackUserName: string | null;
  /** The signed-in member, who would be linked. */
  member: NamedMember & { slackUserId: string | null };
  orgName: string;
  /** Another member the Slack user is linked to already (confirming is then refused). */
  linkedElsewhere: NamedMember | null;
}

/** The live (unused, unexpired) link with this code in the organization, without using it. */
async function liveLink(db: Kysely<Database>, orgId: string, code: string, now: Date) {
  if (!isWellFormedConnectCode(code)) return undefined;
  return db
    .selectFrom('slack_connect_links')
    .select(['id', 'slack_user_id', 'slack_user_name'])
    .where('code_hash', '=', hashToken(code))
    .where('org_id', '=', orgId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

async function memberOf(db: Kysely<Database>, orgId: string, memberId: string) {
  return db
    .selectFrom('members')
    .innerJoin('organizations', 'organizations.id', 'members.org_id')
    .select(['members.id', 'members.name', 'members.role', 'members.slack_user_id', 'organizations.name as org_name'])
    .where('members.org_id', '=', orgId)
    .where('members.id', '=', memberId)
    .executeTakeFirst();
}

async function linkedTo(db: Kysely<Database>, orgId: string, slackUserId: string): Promise<NamedMember | undefined> {
  return db
    .selectFrom('members')
    .select(['id', 'name', 'role'])
    .where('org_id', '=', orgId)
    .where('slack_user_id', '=', slackUserId)
    .executeTakeFirst();
}

/**
 * Refuses a caller that may not give a Slack account their member's powers: an agent, or a
 * session that carries less than its member's role allows (a narrower scope, a lower role
 * ceiling). A linked Slack user acts with the member's whole role, so linking from a
 * narrower credential would make more of it than it is.
 */
function assertMayLink(caller: Principal, memberRole: Role): void {
  if (caller.agent) throw new AppError('requires_human', 403, 'Only a person signed in to tack can link a Slack account.');
  const lacking = scopesForRole(memberRole).filter((s) => !caller.scopes.includes(s));
  if (caller.role !== memberRole || lacking.length > 0) {
    throw new AppError(
      'insufficient_scope',
      403,
      'This sign-in carries less than your role allows, so it cannot give a Slack account your role. Sign in with a link made for you by yourself (tack signin-link), then open this link again.',
    );
  }
}

/**
 * What confirming `code` would link, for the signed-in `caller`; reads only (link scanners
 * open links). 400 `invalid_slack_connect_code` for a used, expired, unknown or another
 * organization's code.
 */
export async function previewSlackConnect(db: Kysely<Database>, code: string, caller: Principal, now: Date): Promise<ConnectPreview> {
  const link = await liveLink(db, caller.orgId, code, now);
  if (!link) throw invalidConnectCode();
  const member = await memberOf(db, caller.orgId, caller.memberId);
  if (!member) throw invalidConnectCode();
  const other = await linkedTo(db, caller.orgId, link.slack_user_id);
  return {
    slackUserId: link.slack_user_id,
    slackUserName: link.slack_user_name,
    member: { id: member.id, name: member.name, role: member.role, slackUserId: member.slack_user_id },
    orgName: member.org_name,
    linkedElsewhere: other && other.id !== member.id ? other : null,
  };
}

/**
 * Confirms `code` for the signed-in `caller` (inside a write transaction that announces the
 * auth change): the link is used (the statement that finds it marks it, so it links once),
 * and its Slack user becomes the caller's member's `slack_user_id`, replacing the one the
 * member had. The caller is read again first (an ended session links nothing). Refused, and
 * the link left unused: a Slack user linked to another member already (409
 * `slack_user_linked`: that link is removed first, by a person), a caller that carries less
 * than its member's role (403).
 */
export async function confirmSlackConnect(trx: Kysely<Database>, code: string, principal: Principal, now: Date): Promise<ConnectPreview> {
  const caller = await confirmCaller(trx, principal, now);
  if (!isWellFormedConnectCode(code)) throw invalidConnectCode();
  const member = await memberOf(trx, caller.orgId, caller.memberId);
  if (!member) throw invalidConnectCode();
  assertMayLink(caller, member.role);
  const link = await trx
    .updateTable('slack_connect_links')
    .set({ used_at: now.toISOString(), used_by: member.id })
    .where('code_hash', '=', hashToken(code))
    .where('org_id', '=', caller.orgId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .returning(['slack_user_id', 'slack_user_name'])
    .executeTakeFirst();
  if (!link) throw invalidConnectCode();
  const other = await linkedTo(trx, caller.orgId, link.slack_user_id);
  if (other && other.id !== member.id) throw linkedElsewhere(other);
  try {
    await trx
      .updateTable('members')
      .set({ slack_user_id: link.slack_user_id, updated_at: now.toISOString() })
      .where('org_id', '=', caller.orgId)
      .where('id', '=', member.id)
      .execute();
  } catch (err) {
    // Linked to someone else by e-mail between the check and the update.
    if (uniqueViolation(err) !== undefined) throw linkedElsewhere(undefined);
    throw err;
  }
  return {
    slackUserId: link.slack_user_id,
    slackUserName: link.slack_user_name,
    member: { id: member.id, name: member.name, role: member.role, slackUserId: link.slack_user_id },
    orgName: member.org_name,
    linkedElsewhere: null,
  };
}

/** Why a Slack user linked to another member is not linked again (the page and the error say it alike). */
export function linkedElsewhereMessage(other: NamedMember | undefined): string {
  return (
    `This Slack account is already linked to ${other ? `another tack member (${other.name})` : 'another tack member'}. ` +
    'That link is removed first (an owner or admin sets that member’s slack_user_id to null), then run /tack connect again.'
  );
}

function linkedElsewhere(other: NamedMember | undefined): AppError {
  return new AppError('slack_user_linked', 409, linkedElsewhereMessage(other));
}

/** Forgets connect links a day past their end (used or not): nothing reads them after. */
export async function pruneConnectLinks(db: Kysely<Database>, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('slack_connect_links')
    .where('expires_at', '<', new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
