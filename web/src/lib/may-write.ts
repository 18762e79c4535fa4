import type { Me } from '../api/types';

/**
 * Whether the caller may change work at all, as getMe's `abilities.write` says (the checks
 * `execute` makes before any write: the `write` scope and a writer's role); the finer rules
 * (boards, members, webhooks) are its other abilities.
 */
export function mayWrite(me: Me | undefined): boolean {
  return me?.abilities.write ?? false;
}
