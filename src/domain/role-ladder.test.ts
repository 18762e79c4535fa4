import { describe, expect, it } from 'vitest';
import type { Role } from '../db/schema.js';
import { assertMayActOn, assertMayGrant, isAbove } from './role-ladder.js';

const LADDER: Role[] = ['viewer', 'member', 'admin', 'owner'];

const refusalOf = (fn: () => void) => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return { code: (err as { code: string }).code, status: (err as { status: number }).status };
  }
};

describe('the role ladder (contract §7)', () => {
  it('orders owner > admin > member > viewer', () => {
    for (const [i, role] of LADDER.entries()) {
      for (const [j, than] of LADDER.entries()) expect(isAbove(role, than), `${role} above ${than}`).toBe(i > j);
    }
  });

  it('refuses with 403 forbidden_role to act on, or grant, a role above the caller’s own, and allows it up to their own', () => {
    for (const caller of LADDER) {
      for (const target of LADDER) {
        const expected = isAbove(target, caller) ? { code: 'forbidden_role', status: 403 } : undefined;
        expect(refusalOf(() => assertMayActOn({ role: caller }, target)), `${caller} on ${target}`).toEqual(expected);
        expect(refusalOf(() => assertMayGrant({ role: caller }, target)), `${caller} grants ${target}`).toEqual(expected);
      }
    }
  });

  it('judges by the role re-read under a lock when one is given', () => {
    expect(refusalOf(() => assertMayActOn({ role: 'owner' }, 'admin', 'member'))).toEqual({ code: 'forbidden_role', status: 403 });
    expect(refusalOf(() => assertMayGrant({ role: 'member' }, 'admin', 'owner'))).toBeUndefined();
  });
});
