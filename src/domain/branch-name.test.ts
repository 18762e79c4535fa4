import { describe, expect, it } from 'vitest';
import { branchName, titleSlug } from './branch-name.js';

describe('branchName (contract §12)', () => {
  it('is the lower-case ref and the title slug', () => {
    expect(branchName('ENG-42', 'Sign-up form validates e-mail')).toBe('eng-42-sign-up-form-validates-e-mail');
    expect(branchName('OPS-7', '  Fix: the   API (v2)! ')).toBe('ops-7-fix-the-api-v2');
  });

  it('keeps ASCII letters and digits only: every other run of characters is one -', () => {
    expect(titleSlug('Crème brûlée — v1.2')).toBe('cr-me-br-l-e-v1-2');
    expect(titleSlug('日本語')).toBe('');
    expect(branchName('ENG-1', '日本語 !!!')).toBe('eng-1');
  });

  it('is at most 60 characters, cut at a - in the last 20, never ending in -', () => {
    const long = branchName('ENG-42', 'Make the sign-up form validate every e-mail address before it is sent');
    expect(long).toBe('eng-42-make-the-sign-up-form-validate-every-e-mail-address');
    expect(long.length).toBeLessThanOrEqual(60);
    // No - in the last 20: cut at 60.
    expect(branchName('ENG-1', `a ${'b'.repeat(80)}`)).toBe(`eng-1-a-${'b'.repeat(52)}`);
    // The 61st character is a -: the 60 end on a whole word.
    const exact = branchName('ENG-1', `${'a'.repeat(54)} next`);
    expect(exact).toBe(`eng-1-${'a'.repeat(54)}`);
    for (const title of ['x'.repeat(53) + ' y', 'word '.repeat(30), '-'.repeat(100) + 'z']) {
      const name = branchName('ENG-12', title);
      expect(name.length).toBeLessThanOrEqual(60);
      expect(name.endsWith('-')).toBe(false);
    }
  });
});
