import { describe, expect, it } from 'vitest';
import { slugify } from './slug.js';

describe('slugify', () => {
  it('strips accents and joins ASCII letters and digits with single hyphens', () => {
    expect(slugify('Déploy: the API!', 64)).toBe('deploy-the-api');
    expect(slugify('  Platform   Team 2 ', 64)).toBe('platform-team-2');
    expect(slugify('Crème brûlée — v1.2', 64)).toBe('creme-brulee-v1-2');
  });

  it('cuts at max characters and never ends in a hyphen', () => {
    expect(slugify('alpha beta gamma', 6)).toBe('alpha');
    expect(slugify('alpha beta gamma', 11)).toBe('alpha-beta');
    expect(slugify('a'.repeat(80), 64)).toHaveLength(64);
  });

  it('is empty when the name has no Latin letter or digit, leaving the fallback to the caller', () => {
    expect(slugify('日本語', 64)).toBe('');
    expect(slugify('!!! ---', 64)).toBe('');
  });
});
