import { describe, expect, it } from 'vitest';
import { pullRequestRefs, refsIn } from './github-refs.js';

const refs = (text: string) => refsIn(text).map((m) => `${m.ref}${m.closing ? ' closes' : ''}`);

describe('card refs in pull requests (contract §12)', () => {
  it.each([
    ['feature/ENG-42', ['ENG-42']],
    ['eng-42-fix-login', ['ENG-42']],
    ['(ENG-42)', ['ENG-42']],
    ['see Eng-42.', ['ENG-42']],
    ['XENG-42', ['XENG-42']],
    ['ENG-421', ['ENG-421']],
    ['ENG-42a', ['ENG-42']],
    ['1ENG-42', []],
    ['ENG-042', []],
    ['ENG-', []],
    ['ENG-1 and OPS-2, ENG-1 again', ['ENG-1', 'OPS-2']],
  ])('%s names %j', (text, expected) => {
    expect(refsIn(text).map((m) => m.ref)).toEqual(expected);
  });

  it('does not take ENG-42 out of XENG-42 or ENG-421', () => {
    expect(refsIn('XENG-42 ENG-421').some((m) => m.ref === 'ENG-42')).toBe(false);
  });

  it.each([
    ['Fixes ENG-1', ['ENG-1 closes']],
    ['fixes: ENG-1', ['ENG-1 closes']],
    ['FIXED:ENG-1', ['ENG-1 closes']],
    ['closes ENG-1', ['ENG-1 closes']],
    ['Resolves  ENG-1', ['ENG-1 closes']],
    ['completes ENG-1', ['ENG-1 closes']],
    ['fixes the bug in ENG-1', ['ENG-1']],
    ['prefixes ENG-1', ['ENG-1']],
    ['fix\nENG-1', ['ENG-1']],
    ['Refs ENG-1, fixes ENG-2', ['ENG-1', 'ENG-2 closes']],
    ['see ENG-1; closes ENG-1', ['ENG-1 closes']],
  ])('%j: %j', (text, expected) => {
    expect(refs(text)).toEqual(expected);
  });

  it('takes every ref of the branch name as closing, and merges the mentions of one ref', () => {
    const found = pullRequestRefs({ branch: 'eng-42-fix-login', title: 'Login: see OPS-3', body: 'Fixes OPS-4\n\nAlso ENG-42' });
    expect(found.map((m) => [m.ref, m.closing])).toEqual([
      ['ENG-42', true],
      ['OPS-3', false],
      ['OPS-4', true],
    ]);
  });
});
