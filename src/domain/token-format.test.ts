import { describe, expect, it } from 'vitest';
import { base62Checksum, generateToken, hashToken, isWellFormedToken, sameDigest, TOKEN_PREFIX, tokenHint } from './token-format.js';

describe('token format (contract §1)', () => {
  it('makes tack_live_ tokens of 32 random base62 characters and a 6-character checksum of them', () => {
    const token = generateToken();
    expect(token).toMatch(/^tack_live_[0-9A-Za-z]{38}$/);
    const random = token.slice(TOKEN_PREFIX.length, -6);
    expect(token.slice(-6)).toBe(base62Checksum(random));
    expect(isWellFormedToken(token)).toBe(true);
    expect(generateToken()).not.toBe(token);
  });

  it('rejects a typo in any position without the database, and a wrong prefix or length', () => {
    const token = generateToken();
    for (let i = TOKEN_PREFIX.length; i < token.length; i++) {
      const typo = token.slice(0, i) + (token[i] === 'a' ? 'b' : 'a') + token.slice(i + 1);
      expect(isWellFormedToken(typo), `typo at ${i}`).toBe(false);
    }
    expect(isWellFormedToken(token.replace('tack_live_', 'tack_test_'))).toBe(false);
    expect(isWellFormedToken(`${TOKEN_PREFIX}abc`)).toBe(false);
    expect(isWellFormedToken(`${token}-`)).toBe(false);
  });

  it('also accepts a checksum over the prefix and random part together', () => {
    const random = 'A'.repeat(32);
    expect(isWellFormedToken(`${TOKEN_PREFIX}${random}${base62Checksum(TOKEN_PREFIX + random)}`)).toBe(true);
  });

  it('stores only a SHA-256 digest, compares digests of any length safely, and shows only a hint', () => {
    const token = generateToken();
    const digest = hashToken(token);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(sameDigest(digest, hashToken(token))).toBe(true);
    expect(sameDigest(digest, hashToken(generateToken()))).toBe(false);
    expect(sameDigest(digest, digest.slice(0, 10))).toBe(false);
    expect(tokenHint(token)).toBe(`${token.slice(0, 14)}…`);
  });
});
