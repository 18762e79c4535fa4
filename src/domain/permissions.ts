import type { Principal, Scope } from './context.js';
import { AppError } from './errors.js';

export const insufficientScope = (scope: Scope) =>
  new AppError('insufficient_scope', 403, `This token lacks the "${scope}" scope needed for this action.`);

/** The refusal of a caller whose token lacks `scope`; undefined when it has it. */
export function scopeRefusal(principal: Principal, scope: Scope): AppError | undefined {
  return principal.scopes.includes(scope) ? undefined : insufficientScope(scope);
}

export function requireScope(principal: Principal, scope: Scope): void {
  const refusal = scopeRefusal(principal, scope);
  if (refusal) throw refusal;
}

/** Viewers read only: the refusal of a write by a viewer; undefined for the other roles. */
export function writerRefusal(principal: Principal): AppError | undefined {
  return principal.role === 'viewer' ? new AppError('forbidden_role', 403, 'Viewers can read but not change anything.') : undefined;
}

/** Viewers read only; every write needs at least the member role. */
export function requireWriter(principal: Principal): void {
  const refusal = writerRefusal(principal);
  if (refusal) throw refusal;
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
