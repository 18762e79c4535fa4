import type { Role } from '../db/schema.js';
import type { Principal } from './context.js';
import { AppError } from './errors.js';

/**
 * Roles are a ladder (contract §7): owner > admin > member > viewer. Nobody acts for a member
 * whose role is above their own.
 */
const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export function roleRank(role: Role): number {
  return RANK[role];
}

/** True when `role` is above the caller's own. */
export function isAbove(role: Role, principal: Principal): boolean {
  return roleRank(role) > roleRank(principal.role);
}

/** Refuses (403 `forbidden_role`) an action on a member whose role is above the caller's. */
export function requireNotAbove(principal: Principal, role: Role, action: string): void {
  if (isAbove(role, principal)) {
    throw new AppError('forbidden_role', 403, `You cannot ${action} a member whose role is above yours.`);
  }
}
