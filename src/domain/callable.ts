import type { Scope } from './context.js';
import type { Role } from '../vocabulary.js';

/** What a caller is, as far as `mayCall` reads it: a principal, or a `getMe` answer. */
export interface Caller {
  scopes: readonly Scope[];
  role: Role;
}

/**
 * Whether `caller` can call an operation at all: its token has the scope the operation needs
 * and, for a write, its role is one that writes (viewers read only). These are the checks
 * `execute` makes first (requireScope, requireWriter); a face that offers a menu of operations
 * (MCP's tools/list) offers only these, and each operation still decides the rest itself (a
 * member edits only their own todos, a gated move needs a human).
 */
export function mayCall(caller: Caller, op: { scope: Scope | null; readOnly: boolean }): boolean {
  // An operation that names no scope is anyone's to call; it decides who may (revokeToken, deleteSession).
  if (op.scope === null) return true;
  return caller.scopes.includes(op.scope) && (op.readOnly || caller.role !== 'viewer');
}
