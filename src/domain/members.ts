import { z } from 'zod';
import { sql, type Kysely, type Updateable } from 'kysely';
import type { Database, MembersTable } from '../db/schema.js';
import type { Ctx, Principal } from './context.js';
import { uniqueViolation } from '../db/errors.js';
import { AppError, notFound } from './errors.js';
import { id, label, pageQuery, timeZone } from './fields.js';
import { newId } from './ids.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { cappedRole } from './credential-limits.js';
import { requireConfigWrite, requireHuman, requireScope } from './permissions.js';
import { assertMayActOn } from './role-ladder.js';
import { memberAbilities, memberAbilitiesSchema, NO_MEMBER_ABILITIES } from './abilities.js';
import { assertMayAddMember, assertRemoval, assertRoleChange, type RoleFacts } from './member-checks.js';
import { toIso } from './time.js';
import { ROLES } from '../vocabulary.js';
import { memberSchema, type Member } from './member-schema.js';
import { notificationSettings, notificationSettingsPatch } from './notification-kinds.js';

/** A member as `listMembers` answers: with what the caller may do with them. */
export const listedMemberSchema = memberSchema.extend({ abilities: memberAbilitiesSchema });
export type ListedMember = z.infer<typeof listedMemberSchema>;

const email = z.string().max(254).email('must be an e-mail address, such as ann@example.com');
const reminderHour = z.number().int('must be a whole hour').min(0, 'must be an hour from 0 to 23').max(23, 'must be an hour from 0 to 23');
// GitHub's rule for logins: letters, digits and single hyphens inside, at most 39 characters.
export const githubLogin = z
  .string()
  .max(39, 'must be a GitHub login of at most 39 characters')
  .regex(/^[A-Za-z0-9](?:-?[A-Za-z0-9])*$/, 'must be a GitHub login: letters, digits and single hyphens inside, such as octo-cat');
const slackUserId = z.string().regex(/^[UW][A-Z0-9]{2,20}$/, 'must be a Slack user id such as U012AB3CD');

export const createMemberInput = z.object({
  name: label(200),
  email: email.optional(),
  role: z.enum(ROLES).default('member'),
  slack_user_id: slackUserId.optional(),
  tz: timeZone.optional(),
  reminder_hour: reminderHour.optional().describe('Local hour (0 to 23) of due-todo reminders; the server default, REMINDER_HOUR, when absent'),
  github_login: githubLogin.optional().describe("The member's GitHub login; unique in the organization"),
});

export const updateMemberInput = z.object({
  id: id('mem'),
  name: label(200).optional(),
  email: email.nullable().optional(),
  role: z.enum(ROLES).optional(),
  slack_user_id: slackUserId.nullable().optional(),
  tz: timeZone.nullable().optional(),
  reminder_hour: reminderHour.nullable().optional().describe('Local hour (0 to 23) of due-todo reminders; null: the server default, REMINDER_HOUR'),
  github_login: githubLogin.nullable().optional().describe("The member's GitHub login, unique in the organization; null unlinks"),
  notifications: notificationSettingsPatch.optional(),
});

export const listMembersInput = z.object(pageQuery);

type MemberRow = Pick<MembersTable, 'id' | 'org_id' | 'name' | 'email' | 'role' | 'slack_user_id' | 'tz' | 'reminder_hour'> & { github_login: string | null; notifications: unknown; created_at: string };

export function presentMember(row: MemberRow): Member {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    email: row.email,
    role: row.role,
    slack_user_id: row.slack_user_id,
    tz: row.tz,
    reminder_hour: row.reminder_hour,
    github_login: row.github_login,
    notifications: notificationSettings(row.notifications),
    created_at: toIso(row.created_at),
  };
}

const memberColumns = ['id', 'org_id', 'name', 'email', 'role', 'slack_user_id', 'tz', 'reminder_hour', 'github_login', 'notifications', 'created_at'] as const;

/**
 * Members newest first, each with the caller's `abilities` on them: judged by the checks the
 * writes run (src/domain/member-checks.ts), on the roles the writes read (`roleRows`, unlocked).
 */
export async function listMembers(ctx: Ctx, input: z.infer<typeof listMembersInput>): Promise<Page<ListedMember>> {
  const scope = ['members', ctx.principal.orgId];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = ctx.db.selectFrom('members').select(memberColumns).where('org_id', '=', ctx.principal.orgId);
  if (at) q = q.where(before('created_at', 'id', at, 'timestamptz'));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetchLimit(limit)).execute();
  const roles = await roleRows(ctx, [], false);
  // A caller whose member is gone (its tokens end with it) may do nothing with anyone.
  const callerKnown = roles.some((r) => r.id === ctx.principal.memberId);
  const present = (row: (typeof rows)[number]): ListedMember => ({
    ...presentMember(row),
    abilities: callerKnown ? memberAbilities(ctx.principal, row.id, roleFactsOf([...roles, row], row.id, ctx.principal)) : NO_MEMBER_ABILITIES,
  });
  return toPage(rows, limit, (r) => ({ key: r.created_at, id: r.id }), present, scope);
}

export async function getMember(db: Kysely<Database>, orgId: string, memberId: string): Promise<Member> {
  const row = await db
    .selectFrom('members')
    .select(memberColumns)
    .where('org_id', '=', orgId)
    .where('id', '=', memberId)
    .executeTakeFirst();
  if (!row) throw notFound('member', memberId);
  return presentMember(row);
}

/** Unique e-mail and Slack id per organization: a clash is a 409, not a 500. */
function uniqueClash(err: unknown): AppError | undefined {
  const constraint = uniqueViolation(err);
  if (constraint === undefined) return undefined;
  if (constraint === 'members_org_slack') return new AppError('member_conflict', 409, 'Another member is already linked to that Slack user.');
  if (constraint === 'members_org_github') return new AppError('member_conflict', 409, 'Another member already has that GitHub login.');
  return new AppError('member_conflict', 409, 'Another member already has that e-mail address.');
}

/**
 * Adds a member (owner or admin with `config:write`), never with a role above the caller's.
 * An agent may add one, but not with an e-mail or Slack user: Slack would take that person
 * for the new member, a human caller the agent made.
 */
export async function createMember(ctx: Ctx, input: z.infer<typeof createMemberInput>): Promise<Member> {
  assertMayAddMember(ctx.principal, input.role);
  if (input.email !== undefined || input.slack_user_id !== undefined) requireHuman(ctx.principal, "set a member's e-mail or Slack user");
  try {
    const row = await ctx.db
      .insertInto('members')
      .values({
        id: newId('mem'),
        org_id: ctx.principal.orgId,
        name: input.name,
        email: input.email ?? null,
        role: input.role,
        slack_user_id: input.slack_user_id ?? null,
        tz: input.tz ?? null,
        reminder_hour: input.reminder_hour ?? null,
        github_login: input.github_login ?? null,
      })
      .returning(memberColumns)
      .executeTakeFirstOrThrow();
    return presentMember(row);
  } catch (err) {
    throw uniqueClash(err) ?? err;
  }
}

/**
 * A member may change their own name, e-mail, Slack link, time zone, reminder hour and notification settings with
 * `write`; anything about another member, and any role, needs `config:write` as owner or
 * admin, and the ladder: nobody changes a member above their own role or grants a role above
 * it (only an owner makes or unmakes an owner), and the last owner stays an owner. A change
 * of anyone's e-mail or Slack user, one's own included, is a person's act (contract §9):
 * Slack takes whoever they name for the member, as a human caller.
 */
export async function updateMember(ctx: Ctx, input: z.infer<typeof updateMemberInput>): Promise<Member> {
  const self = input.id === ctx.principal.memberId;
  if (!self || input.role !== undefined) requireConfigWrite(ctx.principal);
  else requireScope(ctx.principal, 'write');
  const current = await getMember(ctx.db, ctx.principal.orgId, input.id);
  if ((input.email !== undefined && input.email !== current.email) || (input.slack_user_id !== undefined && input.slack_user_id !== current.slack_user_id)) {
    requireHuman(ctx.principal, "change a member's e-mail or Slack user");
  }
  if (input.role !== undefined && input.role !== current.role) {
    assertRoleChange(ctx.principal, current.id, await lockRoles(ctx, current.id), input.role);
  } else if (!self) {
    assertMayActOn(ctx.principal, current.role);
  }
  const patch: Updateable<MembersTable> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.email !== undefined) patch.email = input.email;
  if (input.role !== undefined) patch.role = input.role;
  if (input.slack_user_id !== undefined) patch.slack_user_id = input.slack_user_id;
  if (input.tz !== undefined) patch.tz = input.tz;
  if (input.reminder_hour !== undefined) patch.reminder_hour = input.reminder_hour;
  if (input.github_login !== undefined) patch.github_login = input.github_login;
  // Only the kinds named change: the stored settings are merged with them (jsonb ||).
  const notifications = input.notifications && Object.keys(input.notifications).length > 0 ? JSON.stringify(input.notifications) : undefined;
  if (Object.keys(patch).length === 0 && notifications === undefined) return current;
  try {
    const row = await ctx.db
      .updateTable('members')
      .set({
        ...patch,
        ...(notifications === undefined ? {} : { notifications: sql<string>`notifications || ${notifications}::jsonb` }),
        updated_at: ctx.clock().toISOString(),
      })
      .where('org_id', '=', ctx.principal.orgId)
      .where('id', '=', input.id)
      .returning(memberColumns)
      .executeTakeFirstOrThrow();
    return presentMember(row);
  } catch (err) {
    throw uniqueClash(err) ?? err;
  }
}

/**
 * The roles of the target and the caller (under the caller's ceiling), and whether an owner
 * other than the target remains, read on rows locked for the rest of the transaction: every owner of the
 * organization, the target and the caller, in id order. Two role changes or removals (two
 * owners demoting each other) take the locks in the same order, so one waits for the other
 * instead of deadlocking, and then decides on the roles the first one committed.
 */
async function lockRoles(ctx: Ctx, targetId: string): Promise<RoleFacts> {
  return roleFactsOf(await roleRows(ctx, [targetId], true), targetId, ctx.principal);
}

type RoleRow = { id: string; role: Member['role'] };

/**
 * The id and role of every owner of the organization, of the caller and of `ids`, in id order;
 * with `lock`, locked for the rest of the transaction (`lockRoles`).
 *
 * ```sql
 * select id, role from members where org_id = $1 and (role = 'owner' or id in ($2, …))
 * order by id [for no key update]
 * ```
 */
async function roleRows(ctx: Ctx, ids: readonly string[], lock: boolean): Promise<RoleRow[]> {
  const q = ctx.db
    .selectFrom('members')
    .select(['id', 'role'])
    .where('org_id', '=', ctx.principal.orgId)
    .where((eb) => eb.or([eb('role', '=', 'owner'), eb('id', 'in', [...ids, ctx.principal.memberId])]))
    .orderBy('id');
  return lock ? q.forNoKeyUpdate().execute() : q.execute();
}

/** The facts a role change or removal of `targetId` is judged on, from rows `roleRows` read. */
function roleFactsOf(rows: readonly RoleRow[], targetId: string, principal: Principal): RoleFacts {
  const roleOf = (memberId: string) => rows.find((r) => r.id === memberId)?.role;
  const target = roleOf(targetId);
  const callerRole = roleOf(principal.memberId);
  if (target === undefined) throw notFound('member', targetId);
  if (callerRole === undefined) throw new AppError('unauthorized', 401, 'Your member no longer exists.');
  // The caller acts with their role as it is now, under their credential's ceiling.
  const caller = cappedRole(callerRole, principal.limits?.ceiling ?? null);
  return { target, caller, otherOwner: rows.some((r) => r.role === 'owner' && r.id !== targetId) };
}

export const deleteMemberInput = z.object({ id: id('mem') });

/**
 * Removes a member (contract §7: what a person can create, they can remove), as owner or
 * admin with `config:write`: never a member above the caller's role, never the last owner.
 * Their tokens, sessions, todos and card assignments go with them (the schema cascades), so
 * their tokens and sessions get 401 from their next request on (the operation `changesAuth`).
 * Locks as a role change does, so a removal and a demotion cannot together leave no owner.
 */
export async function deleteMember(ctx: Ctx, input: z.infer<typeof deleteMemberInput>): Promise<void> {
  requireConfigWrite(ctx.principal);
  assertRemoval(ctx.principal, input.id, await lockRoles(ctx, input.id));
  await ctx.db.deleteFrom('members').where('org_id', '=', ctx.principal.orgId).where('id', '=', input.id).execute();
}
