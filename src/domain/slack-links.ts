import type { Kysely } from 'kysely';
import type { Database, Role } from '../db/schema.js';
import { SCOPES, type Principal } from './context.js';

/** The tack member behind a Slack user, in the organization the Slack workspace works in. */
export interface SlackMember {
  id: string;
  orgId: string;
  name: string;
  email: string | null;
  role: Role;
  tz: string | null;
  slackUserId: string;
}

const columns = [
  'members.id',
  'members.org_id',
  'members.name',
  'members.email',
  'members.role',
  'members.tz',
  'members.slack_user_id',
] as const;

type Row = { id: string; org_id: string; name: string; email: string | null; role: Role; tz: string | null; slack_user_id: string | null };

function present(row: Row, slackUserId: string): SlackMember {
  return { id: row.id, orgId: row.org_id, name: row.name, email: row.email, role: row.role, tz: row.tz, slackUserId: row.slack_user_id ?? slackUserId };
}

/**
 * The member whose `slack_user_id` is this Slack user, in the organization with slug `orgSlug`.
 *
 * ```sql
 * select members.* from members join organizations on organizations.id = members.org_id
 * where organizations.slug = $1 and members.slack_user_id = $2
 * ```
 */
export async function findSlackMember(db: Kysely<Database>, orgSlug: string, slackUserId: string): Promise<SlackMember | undefined> {
  const row = await db
    .selectFrom('members')
    .innerJoin('organizations', 'organizations.id', 'members.org_id')
    .select(columns)
    .where('organizations.slug', '=', orgSlug)
    .where('members.slack_user_id', '=', slackUserId)
    .executeTakeFirst();
  return row ? present(row, slackUserId) : undefined;
}

/**
 * The roles a Slack user may be linked to by e-mail. An e-mail address proves little: Slack's
 * workspace admins can change members' addresses, and an address is only as good as the
 * confirmation Slack asked for. So it never links anyone to a role that manages tack (owner,
 * admin): those link with `/tack connect`, confirmed in a signed-in web session.
 */
export const EMAIL_LINKABLE_ROLES: readonly Role[] = ['member', 'viewer'];

/** What Slack's users.info says of a user's e-mail address. */
export interface SlackEmail {
  address: string;
  /** Slack says the user confirmed it (`user.is_email_confirmed`). */
  confirmed: boolean;
}

/**
 * Links the Slack user to the member of the organization with the same e-mail (case
 * insensitive), when Slack says the address is confirmed, the member is a `member` or
 * `viewer`, and not linked to anyone yet; returns the linked member. A member already linked
 * to another Slack user is never taken over. A member write: run it in a write transaction
 * that announces the auth change (`resolveSlackMember`). Two first commands of the same user
 * at once: the second fails on the unique Slack id (23505).
 *
 * ```sql
 * update members set slack_user_id = $1 where org_id = (select id from organizations where slug = $2)
 *   and lower(email) = lower($3) and role in ('member','viewer') and slack_user_id is null returning *
 * ```
 */
export async function linkSlackMemberByEmail(
  db: Kysely<Database>,
  orgSlug: string,
  slackUserId: string,
  email: SlackEmail,
  now: Date,
): Promise<SlackMember | undefined> {
  const address = email.address.trim();
  if (!email.confirmed || address === '' || !address.includes('@')) return undefined;
  const row = await db
    .updateTable('members')
    .set({ slack_user_id: slackUserId, updated_at: now.toISOString() })
    .where('org_id', '=', (eb) => eb.selectFrom('organizations').select('id').where('slug', '=', orgSlug))
    .where((eb) => eb(eb.fn('lower', ['email']), '=', address.toLowerCase()))
    .where('role', 'in', EMAIL_LINKABLE_ROLES)
    .where('slack_user_id', 'is', null)
    .returning(['id', 'org_id', 'name', 'email', 'role', 'tz', 'slack_user_id'])
    .executeTakeFirst();
  return row ? present(row, slackUserId) : undefined;
}

/**
 * A linked Slack user acts as a human caller with their member's role. There is no token to
 * narrow the scopes, so every scope is granted and the role alone limits what they may do
 * (execute() and the domain check the role: viewers read only, config needs owner or admin).
 */
export function slackPrincipal(member: SlackMember): Principal {
  return { orgId: member.orgId, memberId: member.id, tokenId: null, role: member.role, scopes: [...SCOPES], agent: false, face: 'slack' };
}

/**
 * `howToLinkMessage` in one plain sentence, for where Slack shows at most 150 characters
 * (a modal's field error).
 */
export function howToLinkShort(slackUserId: string): string {
  return `Your Slack account (${slackUserId}) is not linked to a tack member, so nothing was saved. Run /tack connect to link it.`;
}

/** What an unknown Slack user is told. */
export function howToLinkMessage(slackUserId: string): string {
  return [
    `Your Slack account (${slackUserId}) is not linked to a tack member yet, so nothing was done.`,
    'Run `/tack connect`: it answers (only to you) a one-time link; open it where you are signed in to the tack web app and confirm.',
    `Or ask an owner or admin of tack to set \`slack_user_id\` to \`${slackUserId}\` on your member. Members and viewers whose ` +
      'tack e-mail is the confirmed e-mail of their Slack profile are linked on their next command.',
  ].join('\n');
}
