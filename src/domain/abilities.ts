import { z } from 'zod';
import type { Principal, Scope } from './context.js';
import { AppError } from './errors.js';
import { assertMayAddMember, assertRemoval, assertRoleChange, assertSigninLink, type RoleFacts } from './member-checks.js';
import { requireConfigWrite, requireScope, requireWriter } from './permissions.js';
import { ROLES } from '../vocabulary.js';

/**
 * What a caller may do (contract §9), as data for clients that show it: each ability is the
 * write's own check evaluated for this caller (`allows`), never a copy of the rule, so the
 * API never offers what it then refuses, nor hides what it would allow.
 */

export const memberAbilitiesSchema = z
  .object({
    change_role: z
      .array(z.enum(ROLES))
      .describe("The roles you may give this member (updateMember's role), their current one left out; empty when you may change none"),
    make_signin_link: z.boolean().describe('Whether you may make a sign-in link for this member (createSigninLink)'),
    remove: z.boolean().describe('Whether you may remove this member (deleteMember)'),
  })
  .describe('What you may do with this member');
export type MemberAbilities = z.infer<typeof memberAbilitiesSchema>;

export const NO_MEMBER_ABILITIES: MemberAbilities = Object.freeze({ change_role: [], make_signin_link: false, remove: false });

export const callerAbilitiesSchema = z
  .object({
    write: z.boolean().describe('Whether you may change work at all: create, edit, move and delete cards, todos, snippets and milestones (every write that needs the write scope; viewers and read-only credentials may not)'),
    manage_members: z.boolean().describe('Whether you may add members and change or remove others (createMember, updateMember, deleteMember)'),
    grant_roles: z.array(z.enum(ROLES)).describe('The roles you may give a member you add (createMember); empty when you may add none'),
    manage_boards: z.boolean().describe('Whether you may create, change and delete boards (createBoard, updateBoard, deleteBoard)'),
    manage_tokens: z.boolean().describe("Whether you may make and revoke other members' tokens (createToken with member_id, revokeToken)"),
    manage_webhooks: z.boolean().describe('Whether you may manage webhooks (owners and admins with config:write)'),
  })
  .describe('What you may do, whatever the thing');
export type CallerAbilities = z.infer<typeof callerAbilitiesSchema>;

/** Whether `check` passes: false when it refuses (an AppError), anything else thrown is a fault and goes on. */
function allows(check: () => void): boolean {
  try {
    check();
    return true;
  } catch (err) {
    if (err instanceof AppError) return false;
    throw err;
  }
}

/** What `execute` checks before every write of an operation that needs `scope` (src/operations/execute.ts). */
function writeGate(principal: Principal, scope: Scope): void {
  requireScope(principal, scope);
  requireWriter(principal);
}

/**
 * The caller's abilities on one member: `change_role` (updateMember needs `write`), a sign-in
 * link (createSigninLink, `write`), removal (deleteMember, `config:write`); each as the write
 * would judge it on `facts`, the roles it reads.
 */
export function memberAbilities(principal: Principal, targetId: string, facts: RoleFacts): MemberAbilities {
  const writes = allows(() => writeGate(principal, 'write'));
  const configures = allows(() => writeGate(principal, 'config:write'));
  return {
    change_role: writes ? ROLES.filter((role) => role !== facts.target && allows(() => assertRoleChange(principal, targetId, facts, role))) : [],
    make_signin_link: writes && allows(() => assertSigninLink(principal, targetId, facts.target)),
    remove: configures && allows(() => assertRemoval(principal, targetId, facts)),
  };
}

/** The caller's abilities whatever the thing: the checks of createMember, createBoard, createToken for another member, and the webhooks'. */
export function callerAbilities(principal: Principal): CallerAbilities {
  const configures = allows(() => {
    writeGate(principal, 'config:write');
    requireConfigWrite(principal);
  });
  const grant_roles = ROLES.filter((role) =>
    allows(() => {
      writeGate(principal, 'config:write');
      assertMayAddMember(principal, role);
    }),
  );
  return {
    write: allows(() => writeGate(principal, 'write')),
    manage_members: configures,
    grant_roles,
    manage_boards: configures,
    manage_tokens: allows(() => {
      writeGate(principal, 'write');
      requireConfigWrite(principal);
    }),
    manage_webhooks: configures,
  };
}
