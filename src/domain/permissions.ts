import type { Principal, Scope } from './context.js';
import { AppError } from './errors.js';

export const insufficientScope = (scope: Scope) =>
  new AppError('insufficient_scope', 403, `This token lacks the "${scope}" scope needed for this action.`);

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw insufficientScope(scope);
}

/** Viewers read only; every write needs at least the member role. */
export function requireWriter(principal: Principal): void {
  if (principal.role === 'viewer') {
    throw new AppError('forbidden_role', 403, 'Viewers can read but not change anything.');
  }
}

/** `config:write` actions (boards, members, others' tokens) need both the scope and owner or admin. */
export function requireConfigWrite(principal: Principal): void {
  requireScope(principal, 'config:write');
  if (principal.role !== 'owner' && principal.role !== 'admin') {
    throw new AppError('forbidden_role', 403, 'Only an owner or admin can change this setting.');
  }
}

export function isAdmin(principal: Principal): boolean {
  return principal.role === 'owner' || principal.role === 'admin';
}
