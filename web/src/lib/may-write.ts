import type { Me } from '../api/types';

/**
 * Whether the caller may write at all: the `write` scope and a writer's role, the two things
 * `execute` checks before any write (a viewer, or a read-only token's session, reads only).
 * getMe states both; the finer rules (boards, members) come from its `abilities`.
 */
export function mayWrite(me: Me | undefined): boolean {
  return me !== undefined && me.scopes.includes('write') && me.role !== 'viewer';
}
