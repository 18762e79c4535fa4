import { describe, expect, it } from 'vitest';
import { memberZone } from './time-zone.js';

describe('memberZone (contract §9)', () => {
  it("takes the member's own zone first, then their Slack profile's, then UTC", () => {
    expect(memberZone('Asia/Tokyo', 'Europe/Berlin')).toBe('Asia/Tokyo');
    expect(memberZone(null, 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(memberZone(undefined, undefined)).toBe('UTC');
  });

  it('counts a zone that is not an IANA name as none', () => {
    expect(memberZone('Mars/Olympus', 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(memberZone('CEST', 'Nowhere/At_All')).toBe('UTC');
    expect(memberZone('', '')).toBe('UTC');
  });
});
