import type { Principal, Scope } from './context.js';
import { AppError } from './errors.js';

/**
 * A caller without a token (a web session, a Slack user) has the scopes of its role, so what
 * it lacks is the role: saying "this token" to someone in a browser names nothing they hold.
 */
export const insufficientScope = (principal: Principal, scope: Scope) =>
  new AppError(
    'insufficient_scope',
    403,
    principal.tokenId === null
      ? `${ROLE_NAMES[principal.role]} cannot do this: it needs the "${scope}" scope, which the ${principal.role} role does not have.`
      : `This token lacks the "${scope}" scope needed for this action.`,
  );

const ROLE_NAMES: Record<Principal['role'], string> = { owner: 'An owner', admin: 'An admin', member: 'A member', viewer: 'A viewer' };

/** The refusal of a caller whose token lacks `scope`; undefined when it has it. */
export function scopeRefusal(principal: Principal, scope: Scope): AppError | undefined {
  return principal.scopes.includes(scope) ? undefined : insufficientScope(principal, scope);
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

/**
 * Acts only a person may do, whatever the token's scopes (contract §9): changing who a member
 * is to Slack and e-mail (Slack links by them, and a Slack user is a human caller) and a
 * board's gate. An agent is refused with 403 `requires_human`, naming what it tried.
 */
export function requireHuman(principal: Principal, what: string): void {
  if (principal.agent) {
    throw new AppError('requires_human', 403, `An agent token cannot ${what}: only a person can. Ask one to do it.`);
  }
}
