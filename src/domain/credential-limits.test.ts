import { describe, expect, it } from 'vitest';
import type { Principal } from './context.js';
import { cappedRole, ceilingFor, linkLimits } from './credential-limits.js';

describe('credential limits (contract §9)', () => {
  const caller = (fields: Partial<Principal> = {}): Principal => ({
    orgId: 'org_1',
    memberId: 'mem_me',
    tokenId: 'tok_1',
    role: 'admin',
    scopes: ['read', 'write'],
    agent: false,
    limits: { tokenId: 'tok_1', scopes: ['read', 'write'], ceiling: null, expiresAt: null },
    ...fields,
  });

  it('acts with the lower of the member’s role and the credential’s ceiling', () => {
    expect(cappedRole('owner', 'member')).toBe('member');
    expect(cappedRole('viewer', 'admin')).toBe('viewer');
    expect(cappedRole('admin', null)).toBe('admin');
  });

  it('caps what one makes for another member at one’s own role, and what one makes for oneself at one’s own ceiling', () => {
    expect(ceilingFor(caller(), 'mem_other')).toBe('admin');
    expect(ceilingFor(caller(), 'mem_me')).toBeNull();
    const capped = caller({ role: 'member', limits: { tokenId: 'tok_1', scopes: ['read'], ceiling: 'member', expiresAt: null } });
    expect(ceilingFor(capped, 'mem_me')).toBe('member');
  });

  it('hands a sign-in link the token it hangs on, its scopes and the ceiling', () => {
    expect(linkLimits(caller(), 'mem_other')).toEqual({ tokenId: 'tok_1', scopes: ['read', 'write'], ceiling: 'admin' });
    const slackUser = caller({ tokenId: null, limits: undefined });
    expect(linkLimits(slackUser, 'mem_me')).toEqual({ tokenId: null, scopes: null, ceiling: null });
  });
});
