import { describe, expect, it } from 'vitest';
import { githubActor } from './github-actor.js';

const ann = { login: 'ann', type: 'User' };
const agents = ['coder-agent'];

describe('githubActor (contract §12)', () => {
  it('a merge by a GitHub user is a person', () => {
    expect(githubActor({ sender: ann, merged: true, mergedBy: { login: 'Bob', type: 'User' } }, agents)).toEqual({ login: 'Bob', agent: false });
  });

  it.each([
    ['merged_by null', null],
    ['a Bot account', { login: 'renovate', type: 'Bot' }],
    ['a [bot] login even typed User', { login: 'deploy[bot]', type: 'User' }],
    ['a login of GITHUB_AGENT_LOGINS, whatever its case', { login: 'Coder-Agent', type: 'User' }],
  ])('a merge by %s is an agent', (_what, mergedBy) => {
    expect(githubActor({ sender: ann, merged: true, mergedBy }, agents).agent).toBe(true);
  });

  it('names the sender when nothing was merged, or merged_by is null', () => {
    expect(githubActor({ sender: ann, merged: false, mergedBy: null }, agents)).toEqual({ login: 'ann', agent: false });
    expect(githubActor({ sender: ann, merged: true, mergedBy: null }, agents)).toEqual({ login: 'ann', agent: true });
  });
});
