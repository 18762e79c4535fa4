import { describe, expect, it } from 'vitest';
import { pooledRandomBytes } from './random-pool.js';

describe('pooledRandomBytes', () => {
  it('hands out every byte once, across refills of the pool, and copies it out', () => {
    const seen = new Set<string>();
    // 2,000 IVs of 12 bytes: about six pools.
    for (let i = 0; i < 2_000; i++) {
      const iv = pooledRandomBytes(12);
      expect(iv.length).toBe(12);
      seen.add(iv.toString('hex'));
    }
    expect(seen.size).toBe(2_000);
    const a = pooledRandomBytes(16);
    const copy = Buffer.from(a);
    pooledRandomBytes(16);
    a.fill(0);
    expect(pooledRandomBytes(16).equals(copy)).toBe(false);
    expect(pooledRandomBytes(8192).length).toBe(8192);
  });
});
