import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../src/domain/context.js';
import { execute } from '../src/operations/execute.js';
import { operationNamed } from '../src/operations/index.js';
import { parseOperationInput } from '../src/operations/operation-input.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
const ids: Record<string, string> = {};
beforeAll(async () => {
  t = await startTestServer();
  const fixtures: Record<string, Record<string, unknown>> = {
    deploy: { type: 'txt', name: 'Deploy checklist', body: 'Drain the queue, then roll the canary.', category: 'ops/release', tags: ['runbook'] },
    users: { type: 'sql', name: 'Active users', body: 'select id, email from users_table where active and plan = \'pro\'', tags: ['analytics', 'Postgres'] },
    config: { type: 'json', name: 'Feature flags', body: '{"canary": true, "rollout": 0.25}', category: 'config/flags' },
    page: { type: 'html', name: 'Status page', body: '<h1>All systems go</h1> Zoë café 日本語 🎉', tags: ['public'] },
  };
  for (const [key, body] of Object.entries(fixtures)) {
    const res = await t.api('POST', '/v1/snippets', { body });
    expect(res.status).toBe(201);
    ids[key] = res.body.id;
  }
});
afterAll(async () => t?.close());

async function search(params: Record<string, string>): Promise<string[]> {
  const res = await t.api('GET', `/v1/snippets?${new URLSearchParams(params)}`);
  expect(res.status, JSON.stringify(params).slice(0, 200)).toBe(200);
  return res.body.data.map((s: { id: string }) => s.id);
}

const keysOf = (found: string[]) => Object.entries(ids).filter(([, id]) => found.includes(id)).map(([k]) => k).sort();

describe('full-text search', () => {
  it('finds words in name, category, tags and body, case-insensitively', async () => {
    expect(keysOf(await search({ q: 'checklist' }))).toEqual(['deploy']);
    expect(keysOf(await search({ q: 'RELEASE' }))).toEqual(['deploy']);
    expect(keysOf(await search({ q: 'ops/release' }))).toEqual(['deploy']);
    expect(keysOf(await search({ q: 'postgres' }))).toEqual(['users']);
    expect(keysOf(await search({ q: 'users_table' }))).toEqual(['users']);
    expect(keysOf(await search({ q: 'canary' }))).toEqual(['config', 'deploy']);
    expect(keysOf(await search({ q: 'flags' }))).toEqual(['config']);
    expect(keysOf(await search({ q: 'café' }))).toEqual(['page']);
    expect(keysOf(await search({ q: '日本語' }))).toEqual(['page']);
    expect(keysOf(await search({ q: 'nothing-like-this' }))).toEqual([]);
  });

  it('finds words inside dotted names and paths', async () => {
    const s = await t.api('POST', '/v1/snippets', {
      body: { type: 'sql', name: 'Zip codes', body: 'SELECT u.zipcode FROM billing.accounts u -- see scripts/export_ledger.sh' },
    });
    for (const q of ['zipcode', 'u.zipcode', 'billing', 'accounts', 'ledger', 'scripts/export_ledger.sh', '"scripts export"']) {
      expect(await search({ q }), q).toEqual([s.body.id]);
    }
    await t.api('DELETE', `/v1/snippets/${s.body.id}`);
  });

  it('understands web search syntax: all words, quoted phrases, or, -exclusion', async () => {
    expect(keysOf(await search({ q: 'canary queue' }))).toEqual(['deploy']);
    expect(keysOf(await search({ q: '"roll the canary"' }))).toEqual(['deploy']);
    expect(keysOf(await search({ q: '"canary the roll"' }))).toEqual([]);
    expect(keysOf(await search({ q: 'checklist or analytics' }))).toEqual(['deploy', 'users']);
    expect(keysOf(await search({ q: 'canary -queue' }))).toEqual(['config']);
  });

  it('takes the last word as a prefix while it is being typed, the others whole', async () => {
    const s = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Overdue cards', body: 'Sign-up reminders' } });
    expect(await search({ q: 'overd' })).toEqual([s.body.id]);
    expect(await search({ q: 'cards overd' })).toEqual([s.body.id]);
    expect(await search({ q: 'overd cards' })).toEqual([]);
    expect(await search({ q: 'sign-u' })).toEqual([s.body.id]);
    // A quoted phrase, an excluded word and a word ending in punctuation stay whole.
    expect(await search({ q: '"overd"' })).toEqual([]);
    expect(keysOf(await search({ q: 'canary -que' }))).toEqual(['config', 'deploy']);
    expect(await search({ q: 'checklist or overd' })).toEqual(expect.arrayContaining([s.body.id, ids.deploy]));
    await t.api('DELETE', `/v1/snippets/${s.body.id}`);
  });

  it('combines with the type and tag filters', async () => {
    expect(keysOf(await search({ q: 'canary', type: 'json' }))).toEqual(['config']);
    expect(keysOf(await search({ q: 'canary', tag: 'runbook' }))).toEqual(['deploy']);
    expect(keysOf(await search({ q: 'canary', tag: 'public' }))).toEqual([]);
    expect(keysOf(await search({ type: 'html' }))).toEqual(['page']);
    expect(keysOf(await search({ tag: 'Postgres' }))).toEqual(['users']);
    // Tags match exactly, as stored.
    expect(keysOf(await search({ tag: 'postgres' }))).toEqual([]);
  });

  it('treats a blank q as no search', async () => {
    expect(keysOf(await search({ q: '   ' }))).toEqual(['config', 'deploy', 'page', 'users']);
  });

  it('follows edits: a new body, name or tag is searchable at once, the old words are not', async () => {
    const s = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Mutable', body: 'pineapple' } });
    expect(await search({ q: 'pineapple' })).toEqual([s.body.id]);
    await t.api('PATCH', `/v1/snippets/${s.body.id}`, { body: { body: 'mango', tags: ['tropical'] } });
    expect(await search({ q: 'pineapple' })).toEqual([]);
    expect(await search({ q: 'mango tropical' })).toEqual([s.body.id]);
    await t.api('DELETE', `/v1/snippets/${s.body.id}`);
  });

  it('indexes a body of 1 MiB made of distinct words without failing the write', async () => {
    let body = '';
    for (let i = 0; body.length < 1024 * 1024 - 40; i++) body += `w${i.toString(36)}x${(i * 7919).toString(36)} `;
    const res = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Huge vocabulary', body } });
    expect(res.status).toBe(201);
    expect(await search({ q: 'w0x0' })).toEqual([res.body.id]);
    expect(await search({ q: 'huge vocabulary' })).toEqual([res.body.id]);
    await t.api('DELETE', `/v1/snippets/${res.body.id}`);
  });
});

const hostile = [
  "'",
  '"',
  '"unclosed phrase',
  "it's",
  '\\',
  '\\\\\'"',
  '& | ! <-> :* ( )',
  '))((',
  'a & b | !c',
  'a <-> b <2> c',
  'foo:*',
  'foo:A',
  "' or 1=1 --",
  '; drop table snippets; --',
  '$$ $1 %s %n %%',
  '-',
  '--',
  '- - -',
  'or',
  'or or or',
  '-or',
  '"" "" ""',
  'NULL',
  'Zoë café ß İ ﬁ',
  '🎉🔥👩‍👩‍👧',
  'مرحبا بالعالم',
  '\u202eevil\u202c',
  'e\u0301 combining',
  '\ud800 lone surrogate',
  'a\u0000b',
  '\u0000',
  '\u0000\u0000 canary \u0000',
  '\u0001\u0007\u001b[31m',
  // As long as a q may be (1,000 characters):
  'a'.repeat(1_000),
  'ab '.repeat(333),
  `${'日'.repeat(700)} canary`,
  'a-'.repeat(500),
  '"a b c d e f g h i j" '.repeat(45),
];

describe('hostile search input', () => {
  it.each(hostile.map((q) => [JSON.stringify(q).slice(0, 40), q]))('answers 200 for q=%s', async (_, q) => {
    const res = await t.api('GET', `/v1/snippets?${new URLSearchParams({ q })}`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
    if (res.body.next_cursor) {
      const next = await t.api('GET', `/v1/snippets?${new URLSearchParams({ q, cursor: res.body.next_cursor })}`);
      expect(next.status).toBe(200);
    }
  });

  it('still finds the word next to NUL bytes and overlong words', async () => {
    expect(keysOf(await search({ q: '\u0000canary\u0000' }))).toEqual(['config', 'deploy']);
    // 2,100 bytes of UTF-8 in one word: past what Postgres indexes (2,047), inside the 1,000 characters a q may have.
    expect(keysOf(await search({ q: `${'日'.repeat(700)} canary` }))).toEqual(['config', 'deploy']);
  });

  it('takes any text of up to 1,000 characters through the operation itself (as MCP would send it)', async () => {
    const { principal } = await t.server.authCache.authenticate(t.token);
    const op = operationNamed('listSnippets');
    const nasty = `"'\\&|!<->:*()-or \u0000🎉日本 `;
    const fill = (unit: string) => unit.repeat(Math.ceil(1_000 / unit.length)).slice(0, 1_000);
    // The most words, alternatives, exclusions and phrases 1,000 characters can hold: the parser's worst cases.
    const texts = [fill(nasty), fill('"'), fill('('), fill('日本語'), fill('a '), fill('a or '), fill('-a '), fill('"a b" ')];
    for (const q of texts) {
      const parsed = op.input.parse({ q }) as Record<string, unknown>;
      const outcome = await execute(t.server.runtime, op, principal as Principal, parsed);
      expect(outcome.status).toBe(200);
      expect(JSON.parse(outcome.body!).data).toEqual(expect.any(Array));
    }
  });

  it('refuses a q beyond 1,000 characters as invalid (422), never a failure of the search (500)', async () => {
    const res = await t.api('GET', `/v1/snippets?q=${encodeURIComponent('ab '.repeat(1_667))}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'q', code: 'too_big', message: 'q must be at most 1000 characters long.' }]);
    // Through the operation's own validation, as MCP sends it (no URL to cap it): 33,000 words
    // were once a Postgres "stack depth limit exceeded", answered 500.
    expect(() => parseOperationInput(operationNamed('listSnippets'), { q: 'ab '.repeat(33_000) })).toThrow(
      expect.objectContaining({ status: 422, fields: [expect.objectContaining({ field: 'q', code: 'too_big' })] }),
    );
  });
});
