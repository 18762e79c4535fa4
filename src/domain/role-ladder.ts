import type { Role } from '../db/schema.js';
import type { Principal } from './context.js';
import { forbidden } from './errors.js';

/**
 * Roles are a ladder (contract §7): owner > admin > member > viewer. Nobody makes a token or
 * a sign-in link for a member above their own role, changes such a member, or raises anyone
 * above their own role. Every face reaches these rules through the domain functions that
 * call them (createToken, createMember, updateMember, createSigninLink).
 */
const RANK: Readonly<Record<Role, number>> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export function roleRank(role: Role): number {
  return RANK[role];
}

/** True when `role` is above `than` on the ladder. */
export function isAbove(role: Role, than: Role): boolean {
  return RANK[role] > RANK[than];
}

/**
 * Throws 403 `forbidden_role` when the caller would act on a member whose role is above
 * their own (make a token or a sign-in link for them, change them). `callerRole` overrides
 * the principal's role where the caller's row was just re-read under a lock.
 */
export function assertMayActOn(principal: Pick<Principal, 'role'>, targetRole: Role, callerRole: Role = principal.role): void {
  if (isAbove(targetRole, callerRole)) {
    throw forbidden('forbidden_role', `This member's role (${targetRole}) is above yours (${callerRole}), so you cannot act on them.`);
  }
}

/** Throws 403 `forbidden_role` when the caller would give someone a role above their own. */
export function assertMayGrant(principal: Pick<Principal, 'role'>, role: Role, callerRole: Role = principal.role): void {
  if (isAbove(role, callerRole)) {
    throw forbidden('forbidden_role', `You cannot grant the ${role} role: it is above your own (${callerRole}).`);
  }
}
