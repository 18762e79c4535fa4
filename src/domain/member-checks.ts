import type { Role } from '../db/schema.js';
import type { Principal } from './context.js';
import { AppError } from './errors.js';
import { requireConfigWrite } from './permissions.js';
import { assertMayActOn, assertMayGrant, isAbove } from './role-ladder.js';

/**
 * The checks of the writes on members, apart from the reads and locks that feed them, so the
 * writes run them and `abilities` (src/domain/abilities.ts) evaluates the very same functions:
 * what the API says a caller may do and what it then lets them do cannot disagree.
 */

/** What a role change or a removal is judged on, read from the members table (`lockRoles`, `roleFactsOf` in members.ts). */
export interface RoleFacts {
  /** The role of the member acted on. */
  target: Role;
  /** The caller's role, as the members table holds it. */
  caller: Role;
  /** An owner other than the member acted on remains. */
  otherOwner: boolean;
}

export const lastOwner = () => new AppError('last_owner', 409, 'An organization keeps at least one owner.');

/**
 * Adding a member with `role` (createMember): `config:write` as owner or admin, and never a role
 * above the caller's own.
 */
export function assertMayAddMember(principal: Principal, role: Role): void {
  requireConfigWrite(principal);
  assertMayGrant(principal, role);
}

/**
 * Giving member `targetId` the role `role` (updateMember): `config:write` as owner or admin (on
 * the role the table holds now), never a member above the caller, never a role above the
 * caller's, and the last owner stays an owner. Giving a member the role they have changes nothing.
 */
export function assertRoleChange(principal: Principal, targetId: string, facts: RoleFacts, role: Role): void {
  requireConfigWrite(principal);
  if (facts.target === role) return;
  if (isAbove('admin', facts.caller)) throw new AppError('forbidden_role', 403, 'Only an owner or admin can change this setting.');
  if (targetId !== principal.memberId) assertMayActOn(principal, facts.target, facts.caller);
  assertMayGrant(principal, role, facts.caller);
  if (facts.target === 'owner' && !facts.otherOwner) throw lastOwner();
}

/** Removing member `targetId` (deleteMember): `config:write` as owner or admin, never a member above the caller, never the last owner. */
export function assertRemoval(principal: Principal, targetId: string, facts: RoleFacts): void {
  requireConfigWrite(principal);
  if (targetId !== principal.memberId) assertMayActOn(principal, facts.target, facts.caller);
  if (facts.target === 'owner' && !facts.otherOwner) throw lastOwner();
}

export const signinLinkRequiresHuman = () =>
  new AppError('signin_link_requires_human', 403, 'An agent token cannot make sign-in links: a link signs a person in.');

/**
 * Making a sign-in link for member `targetId` (createSigninLink): never by an agent (a link
 * gives a human session); for another member `config:write` as owner or admin; never for a
 * member above the caller's role.
 */
export function assertSigninLink(principal: Principal, targetId: string, targetRole: Role): void {
  if (principal.agent) throw signinLinkRequiresHuman();
  if (targetId === principal.memberId) return; // a link for oneself keeps the caller's own ceiling (contract §9)
  requireConfigWrite(principal);
  assertMayActOn(principal, targetRole);
}
