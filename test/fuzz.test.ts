import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operations } from '../src/operations/index.js';
import type { Operation } from '../src/operations/operation.js';
import { changedTables, fingerprint } from './helpers/db-fingerprint.js';
import { leaksIn } from './helpers/envelope.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';

/**
 * Throws hostile input at every operation in the table (operations added later are covered
 * by the same loop) and checks that each answer is a 2xx or the envelope with a 4xx status,
 * and that no error body leaks internals or a token.
 */

const PREFIX: Record<string, string> = {
  me: 'mem',
  member: 'mem',
  members: 'mem',
  token: 'tok',
  tokens: 'tok',
  snippet: 'snp',
  snippets: 'snp',
  board: 'brd',
  boards: 'brd',
  card: 'crd',
  cards: 'crd',
  criterion: 'crit',
  criteria: 'crit',
  todo: 'todo',
  todos: 'todo',
  milestone: 'ms',
  milestones: 'ms',
  jobs: 'job',
};

/** A plausible id for a field or path parameter: `id` takes the operation's group, `member_id` its stem. */
function plausibleId(op: Operation, name: string): string {
  const stem = name === 'id' ? op.group : name.replace(/_ids?$/, '');
  return `${PREFIX[stem] ?? 'snp'}_doesnotexist`;
}

/** A value the field's own schema accepts, so other fields' hostile values reach the domain. */
function plausibleValue(op: Operation, name: string, schema: z.ZodType): unknown {
  let json: { enum?: unknown[]; items?: { enum?: unknown[] }; type?: string } = {};
  try {
    json = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as typeof json;
  } catch {
    /* fall back to candidates */
  }
  const candidates: unknown[] = [];
  if (json.enum?.length) candidates.push(json.enum[0]);
  if (json.items?.enum?.length) candidates.push([json.items.enum[0]]);
  if (/(^id$|_id$|^board$|^milestone$|^card$)/.test(name)) candidates.push(plausibleId(op, name));
  if (/_ids$/.test(name)) candidates.push([plausibleId(op, name)]);
  candidates.push(
    'fuzz value',
    'fuzz@example.com',
    'U0FUZZ1',
    'Europe/Berlin',
    '2099-01-01',
    '2099-01-01T00:00:00Z',
    'FUZ',
    'fuzz-slug',
    'M1',
    '1',
    1,
    true,
    ['fuzz'],
    {},
  );
  for (const c of candidates) if (schema.safeParse(c).success) return c;
  return undefined;
}

/** The operation's /v1 address with its parameters filled in (operation paths are relative to /v1). */
function fillPath(op: Operation, override?: (name: string) => string): string {
  return '/v1' + op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (override) return override(name);
    const schema = op.params?.shape[name] as z.ZodType | undefined;
    const id = plausibleId(op, name);
    if (!schema || schema.safeParse(id).success) return id;
    for (const c of ['999', 'doesnotexist', 'M999']) if (schema.safeParse(c).success) return c;
    return id;
  });
}

/** The required body fields with plausible values (optional ones left out, so defaults apply). */
function baseBody(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(op.body?.shape ?? {})) {
    if ((schema as z.ZodType).safeParse(undefined).success) continue;
    const v = plausibleValue(op, name, schema as z.ZodType);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

const MB = 'a'.repeat(1024 * 1024);
/** Far over every field's limit, yet small enough that a value per field per operation stays quick. */
const HUGE = 'a'.repeat(64 * 1024);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

/** Wrong types: they never pass validation, so every field gets one at once. */
const WRONG_TYPES: [string, unknown][] = [
  ['number', 12345],
  ['float', -1.5e308],
  ['boolean', true],
  ['null', null],
  ['array', [1, 'two', null]],
  ['object', { a: 1 }],
];
/** Values that may pass validation and reach the domain and SQL: each field gets each in turn. */
const HOSTILE_VALUES: [string, unknown][] = [
  ['64 KiB string', HUGE],
  ['unicode', 'ünïcödé 日本語 😀 𝕏 a\u0301'],
  ['bidi and zero-width', '\u202Eevil\u200B\uFEFF'],
  ['lone surrogate', '\ud800x'],
  ['NUL', '\u0000'],
  ['inner NUL', 'a\u0000b'],
  ['NUL in array', ['\u0000']],
  ['SQL-looking', "x' or '1'='1"],
];
// Raw JSON spliced into every field at once (things JSON.stringify cannot make).
const HOSTILE_RAW: [string, string][] = [
  ['deep array', deepArray(20_000)],
  ['deep object', deepObject(20_000)],
  ['__proto__ inside', '{"__proto__":{"polluted":true}}'],
];

interface Case {
  label: string;
  method: string;
  path: string;
  raw?: string | Buffer;
  contentType?: string | null;
  token?: string | null;
  headers?: Record<string, string>;
}

function casesFor(op: Operation): Case[] {
  const path = fillPath(op);
  const cases: Case[] = [];
  const json = (label: string, raw: string, p = path): Case => ({ label, method: op.method, path: p, raw, contentType: 'application/json' });

  // Path parameters.
  if (op.path.includes('{')) {
    for (const [label, value] of [
      ['NUL', '%00'],
      ['unicode', encodeURIComponent('😀ü')],
      ['long', 'a'.repeat(600)],
      ['1 MB', MB],
      ['dots', '%2e%2e'],
      ['SQL-looking', encodeURIComponent("x' or '1'='1")],
      ['__proto__', '__proto__'],
    ] as const) {
      const body = op.method === 'GET' ? undefined : JSON.stringify(baseBody(op));
      cases.push({ label: `path param ${label}`, method: op.method, path: fillPath(op, () => value), raw: body, contentType: body ? 'application/json' : undefined });
    }
  }

  // Query strings (every operation: unknown parameters must be harmless too).
  const queryFields = Object.keys(op.query?.shape ?? {});
  const qs = [
    'limit=abc',
    'limit=-1',
    'limit=1e400',
    'limit=%00',
    'cursor=%00',
    'cursor=garbage',
    `cursor=${encodeURIComponent('😀')}`,
    'limit=1&limit=2',
    '__proto__[polluted]=1',
    'constructor[prototype][polluted]=1',
    `x=${MB}`,
    ...queryFields.flatMap((f) => [`${f}=%00`, `${f}=${encodeURIComponent('\u0000ü😀')}`, `${f}=`, `${f}[]=1`, `${f}=${'z'.repeat(5000)}`]),
  ];
  for (const q of qs) {
    const body = op.method === 'GET' ? undefined : JSON.stringify(baseBody(op));
    cases.push({ label: `query ${q.slice(0, 40)}`, method: op.method, path: `${path}?${q}`, raw: body, contentType: body ? 'application/json' : undefined });
  }

  if (op.method === 'GET') return cases;

  // Bodies that are not JSON objects.
  for (const raw of ['{', '{"a":', '[1,', '"unterminated', 'nul', '{"a":1}garbage', '\u0000', '{"a":"\u0000', '[]', '[{}]', '"string"', '123', 'null', 'true', deepArray(50_000), deepObject(10_000)]) {
    cases.push(json(`body ${JSON.stringify(raw.slice(0, 20))}`, raw));
  }
  const base = baseBody(op);
  cases.push(json('array of the body', JSON.stringify([base])));
  cases.push(json('plausible body', JSON.stringify(base)));
  cases.push(json('invalid UTF-8', '', path), { ...json('invalid UTF-8 bytes', ''), raw: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]) });

  // Prototype poisoning at the top.
  for (const raw of [
    JSON.stringify(base).replace(/^\{/, '{"__proto__":{"polluted":true},'),
    JSON.stringify(base).replace(/^\{/, '{"constructor":{"prototype":{"polluted":true}},'),
    '{"__proto__":null}',
  ]) {
    cases.push(json(`prototype key ${raw.slice(0, 30)}`, raw));
  }

  const fields = Object.keys(op.body?.shape ?? {});
  const everyField = (value: string) => `{${fields.map((f) => `${JSON.stringify(f)}:${value}`).join(',')}}`;
  for (const [label, value] of WRONG_TYPES) cases.push(json(`every field = ${label}`, everyField(JSON.stringify(value))));
  for (const [label, raw] of HOSTILE_RAW) cases.push(json(`every field = ${label}`, everyField(raw)));
  // Each field in turn gets each hostile value, the others staying plausible.
  for (const field of fields) {
    for (const [label, value] of HOSTILE_VALUES) cases.push(json(`${field} = ${label}`, JSON.stringify({ ...base, [field]: value })));
  }
  cases.push(json('NUL key', JSON.stringify({ ...base, '\u0000': 1 })));
  cases.push(json('1 MB key', JSON.stringify({ ...base, [MB]: 1 })));

  // Wrong content types with a good body.
  for (const type of [null, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/octet-stream', 'application/json-patch+json', 'application/json; charset=utf-16', '']) {
    cases.push({ label: `content-type ${JSON.stringify(type)}`, method: op.method, path, raw: JSON.stringify(base), contentType: type });
  }

  // Hostile Idempotency-Key headers.
  for (const key of ['a'.repeat(300), 'has space', '\u00e9t\u00e9', '']) {
    cases.push({ ...json(`Idempotency-Key ${JSON.stringify(key.slice(0, 12))}`, JSON.stringify(base)), headers: { 'idempotency-key': key } });
  }
  return cases;
}

let t: TestServer;
let secrets: string[];
beforeAll(async () => {
  t = await startTestServer();
  const reader = await t.api('POST', '/v1/tokens', { body: { name: 'fuzz reader', scopes: ['read'] } });
  secrets = [t.token, reader.body.token];
});
afterAll(async () => t?.close());

async function send(c: Case, token: string | null): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...c.headers };
  if (c.contentType !== undefined && c.contentType !== null) headers['content-type'] = c.contentType;
  return t.api(c.method, c.path, { token, raw: c.raw, headers });
}

/** What is wrong with one answer (empty when it is a 2xx, or the envelope with a 4xx). */
function problemsWith(res: ApiResponse): string[] {
  const problems: string[] = [];
  const rid = res.headers.get('x-request-id');
  if (!rid) problems.push('no X-Request-Id');
  if (res.status >= 200 && res.status < 300) return problems;
  if (res.status < 400 || res.status >= 500) problems.push(`status ${res.status}`);
  const b = res.body as Record<string, unknown> | undefined;
  if (!b || typeof b.code !== 'string' || b.http_status !== res.status || typeof b.user_message !== 'string' || b.request_id !== rid) {
    problems.push('not the envelope');
  }
  if (res.status === 422 && !Array.isArray(b?.errors)) problems.push('422 without errors[]');
  problems.push(...leaksIn(res.text, secrets).map((l) => `leaks ${l}`));
  return problems;
}

interface RunResult {
  failures: string[];
  /** The cases answered with a 4xx. */
  refused: Case[];
  /** The cases answered with a 2xx. */
  accepted: Case[];
}

async function runAll(cases: Case[], token: () => string | null, concurrency = 6): Promise<RunResult> {
  const failures: string[] = [];
  const refused: Case[] = [];
  const accepted: Case[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      let problems: string[];
      let res: ApiResponse | undefined;
      try {
        res = await send(c, token());
        problems = problemsWith(res);
        (res.status >= 400 ? refused : accepted).push(c);
      } catch (err) {
        problems = [`request failed: ${(err as Error).message}`];
      }
      if (problems.length > 0) {
        failures.push(`${c.method} ${c.path.slice(0, 80)} [${c.label}] → ${res?.status}: ${problems.join('; ')} ${res?.text.slice(0, 200) ?? ''}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { failures, refused, accepted };
}

describe('fuzzing every operation in the table', () => {
  it('covers every operation', () => {
    expect(operations.length).toBeGreaterThanOrEqual(7);
    for (const op of operations) expect(casesFor(op).length).toBeGreaterThan(10);
  });

  for (const op of operations) {
    it(`${op.name} (${op.method} ${op.path}) answers 2xx or a clean 4xx envelope`, async () => {
      const cases = casesFor(op);
      const owner = await runAll(cases, () => t.token);
      const failures = owner.failures;
      // The same hostile requests without a token, and with a read-only one, must fail cleanly
      // too, and change nothing at all (the reader's writes are refused before they run).
      const sample = cases.filter((_, i) => i % 8 === 0);
      const before = await fingerprint(t.database!);
      const anonymous = await runAll(sample, () => null);
      const reader = await runAll(sample, () => secrets[1]!);
      failures.push(...anonymous.failures, ...reader.failures);
      if (!op.readOnly) failures.push(...reader.accepted.map((c) => `a read-only token was not refused: ${c.label}`));
      failures.push(...anonymous.accepted.map((c) => `no token was not refused: ${c.label} ${c.path}`));
      // The owner's refused requests, again (a share of them, to stay quick): still refused,
      // and the database is exactly as it was.
      const again = await runAll(owner.refused.filter((_, i) => i % 5 === 0), () => t.token);
      failures.push(...again.failures, ...again.accepted.map((c) => `refused once, accepted when sent again: ${c.label}`));
      const changed = changedTables(before, await fingerprint(t.database!));
      if (again.accepted.length === 0) failures.push(...changed.map((table) => `a refused request changed ${table}`));
      expect(failures, failures.join('\n')).toEqual([]);
      // The owner token still works: nothing above broke the server or revoked it.
      expect((await t.api('GET', '/v1/me')).status).toBe(200);
    });
  }

  it('leaves Object.prototype clean', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
