import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOperations } from '../src/operations/manifest.js';
import { operations } from '../src/operations/index.js';
import type { Operation } from '../src/operations/operation.js';
import { expectEnvelope } from './helpers/envelope.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { connectMcp } from './helpers/mcp-http.js';

/**
 * Contract §7, strict input. The rules are mechanisms of the operation table, so most tests
 * here walk the whole table: an operation added later is held to them without a new test.
 */

let t: TestServer;
let mcp: Client;
beforeAll(async () => {
  t = await startTestServer();
  mcp = await connectMcp(t.url, t.token, 'strict-test');
});
afterAll(async () => {
  await mcp?.close().catch(() => {});
  await t?.close();
});

/** The operation's path with a placeholder for each parameter (`1` for integers). */
function pathOf(op: Operation, values: Record<string, string> = {}): string {
  return `/v1${op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? (op.textTypes[name] === 'integer' ? '1' : `nope-${name}`)))}`;
}

type FieldError = { field: string; code: string; message: string };
const errorsOf = (res: ApiResponse): FieldError[] => res.body.errors;

/** What a person must never read in a field error. */
const JARGON = /\(custom\)|Invalid input|invalid_union|expected \w+, received|Unrecognized key|9007199254740991|Too (big|small)|Invalid (ISO|string|option|email)/;

function expectPlainErrors(res: ApiResponse, what: string): void {
  expectEnvelope(res, 422, 'validation_failed');
  const fields = errorsOf(res).map((e) => e.field);
  expect(new Set(fields).size, `${what}: one error per field: ${res.text}`).toBe(fields.length);
  for (const e of errorsOf(res)) {
    expect(e.message, what).not.toMatch(JARGON);
    // One sentence: capital or field name first, one full stop (or question mark) at the end, no line breaks.
    expect(e.message, what).toMatch(/^[^\n]+[.?]$/);
    expect(e.message.startsWith(`${e.field} `) || /^[A-Z]/.test(e.message), `${what}: a sentence names its field: ${e.message}`).toBe(true);
    expect(e.message.replace(/\be\.g\.|\(\\u0000\)|\d\.\d/g, '').match(/[.?!](\s|$)/g)?.length, `${what}: ${e.message}`).toBe(1);
  }
  expect(res.body.user_message, what).not.toMatch(JARGON);
}

describe('unknown fields (contract §7)', () => {
  it('refuses an unknown query field on every operation with 422 unknown_field, before anything else happens', async () => {
    for (const op of operations) {
      const res = await t.api(op.method, `${pathOf(op)}?bogus_field=1`, op.method === 'GET' ? {} : { body: {} });
      expectEnvelope(res, 422, 'validation_failed');
      expect(errorsOf(res), op.name).toContainEqual({ field: 'bogus_field', code: 'unknown_field', message: expect.stringContaining('bogus_field') });
    }
  });

  it('refuses an unknown body field on every write with 422 unknown_field, with or without a body schema', async () => {
    for (const op of operations.filter((o) => !o.readOnly)) {
      const res = await t.api(op.method, pathOf(op), { body: { bogus_field: 1 } });
      expectEnvelope(res, 422, 'validation_failed');
      expect(errorsOf(res), op.name).toContainEqual({ field: 'bogus_field', code: 'unknown_field', message: expect.stringContaining('bogus_field') });
    }
  });

  it('suggests the field meant when it can tell, and changes nothing', async () => {
    await t.api('POST', '/v1/boards', { body: { name: 'Strict', slug: 'strict', ref_prefix: 'STR' } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'strict', title: 'Guess' } })).body;
    const res = await t.api('PATCH', `/v1/cards/${card.ref}`, { body: { status: 'done' } });
    expect(errorsOf(res)).toEqual([
      { field: 'status', code: 'unknown_field', message: 'status is not a field of this request; did you mean workflow_status?' },
    ]);
    expect((await t.api('GET', `/v1/cards/${card.ref}`)).body.workflow_status).toBe('backlog');
  });

  it('MCP tools declare additionalProperties: false and refuse unknown arguments as /v1 does', async () => {
    for (const entry of describeOperations(operations).operations) expect(entry.inputSchema.additionalProperties, entry.name).toBe(false);
    const { tools } = await mcp.listTools();
    for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    const result = (await mcp.callTool({ name: 'listTodos', arguments: { status: 'open' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result._meta?.['tack/error'] as { errors: FieldError[] }).errors).toEqual([
      { field: 'status', code: 'unknown_field', message: 'status is not an argument of listTodos; it takes cursor, limit, due, done, scope.' },
    ]);
    const done = (await mcp.callTool({ name: 'completeTodo', arguments: { id: 'todo_x', really: true } })) as CallToolResult;
    expect((done._meta?.['tack/error'] as { errors: FieldError[] }).errors).toContainEqual(expect.objectContaining({ field: 'really', code: 'unknown_field' }));
  });
});

describe('values are read as written, never rewritten (contract §7)', () => {
  it('reads integers and booleans in a query or path only from their exact text', async () => {
    for (const bad of ['1e2', '2.0', '+5', '%205', '0x10', '5abc', '']) {
      const res = await t.api('GET', `/v1/members?limit=${bad}`);
      expectPlainErrors(res, `limit=${bad}`);
      expect(errorsOf(res)[0]!.field).toBe('limit');
    }
    expect(errorsOf(await t.api('GET', '/v1/members?limit=1e2'))[0]!.message).toBe('limit must be a whole number, such as 25.');
    expect((await t.api('GET', '/v1/members?limit=100')).status).toBe(200);
    for (const bad of ['TRUE', '1', 'yes', '']) expectPlainErrors(await t.api('GET', `/v1/todos?done=${bad}`), `done=${bad}`);
    expect((await t.api('GET', '/v1/todos?done=false')).status).toBe(200);
    expectPlainErrors(await t.api('GET', '/v1/snippets/any/versions/1e0'), 'version 1e0');
  });

  it('has no field that coerces (z.coerce reads "1e2" as 100 and "false" as true): text is read by the validation', () => {
    const coerces = (s: { _zod: { def: Record<string, unknown>; parent?: unknown } }): boolean => {
      const def = s._zod.def;
      if (def.coerce === true) return true;
      const next = [s._zod.parent, def.innerType, def.element, def.in, def.out, ...((def.options as unknown[]) ?? [])];
      return next.some((n) => n !== undefined && coerces(n as typeof s));
    };
    for (const op of operations) {
      for (const [name, field] of Object.entries(op.input.shape)) expect(coerces(field as never), `${op.name}.${name}`).toBe(false);
    }
  });

  it('refuses a slug, a ref prefix or a milestone ref that is not one, instead of rewriting it', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['/v1/boards', { name: 'Lower', ref_prefix: 'eng' }, 'ref_prefix'],
      ['/v1/boards', { name: 'Upper', slug: 'Eng' }, 'slug'],
      ['/v1/boards', { name: 'Spaced', slug: ' eng ' }, 'slug'],
      ['/v1/boards', { name: 'Trailing', slug: 'eng-' }, 'slug'],
      ['/v1/milestones', { ref: ' M3', name: 'Spaced' }, 'ref'],
      ['/v1/members', { name: 'Slack', slack_user_id: 'u012ab3cd' }, 'slack_user_id'],
    ];
    for (const [path, body, field] of cases) {
      const res = await t.api('POST', path, { body });
      expectPlainErrors(res, JSON.stringify(body));
      expect(errorsOf(res).map((e) => e.field), JSON.stringify(body)).toEqual([field]);
    }
    const board = (await t.api('POST', '/v1/boards', { body: { name: 'Kept', slug: 'kept', ref_prefix: 'KEP' } })).body;
    expectPlainErrors(await t.api('PATCH', `/v1/boards/${board.id}`, { body: { ref_prefix: 'kep' } }), 'update prefix');
    expect((await t.api('GET', '/v1/boards')).body.data.find((b: { id: string }) => b.id === board.id).ref_prefix).toBe('KEP');
  });

  it('refuses a NUL character anywhere with a field error naming where it was', async () => {
    const card = await t.api('GET', '/v1/cards/ENG%00-1');
    expectPlainErrors(card, 'path');
    expect(errorsOf(card)).toEqual([{ field: 'id', code: 'invalid_characters', message: 'id must not contain the NUL character (\\u0000).' }]);
    const query = await t.api('GET', '/v1/cards?board=a%00b');
    expect(errorsOf(query)).toEqual([expect.objectContaining({ field: 'board', code: 'invalid_characters' })]);
    const body = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Nul', body: 'a\u0000b', tags: ['ok', 'n\u0000l'] } });
    expectPlainErrors(body, 'body');
    expect(errorsOf(body).map((e) => e.field).sort()).toEqual(['body', 'tags.1']);
  });

  it('refuses half of a surrogate pair (Postgres would keep U+FFFD) with a field error naming where it was', async () => {
    const raw = '{"type":"txt","name":"lone \\ud800","body":"ok","tags":["ok","\\udc00x"]}';
    const res = await t.api('POST', '/v1/snippets', { raw, headers: { 'content-type': 'application/json' } });
    expectPlainErrors(res, 'lone surrogates');
    expect(errorsOf(res)).toEqual([
      { field: 'name', code: 'invalid_characters', message: 'name must not contain half of a UTF-16 surrogate pair (a lone \\uD800 to \\uDFFF); send the whole character.' },
      expect.objectContaining({ field: 'tags.1', code: 'invalid_characters' }),
    ]);
    const list = await t.api('GET', '/v1/snippets?limit=100');
    expect(list.body.data.some((x: { name: string }) => x.name.startsWith('lone'))).toBe(false);
    // A whole pair is a character like any other.
    const pair = await t.api('POST', '/v1/snippets', { raw: '{"type":"txt","name":"pair \\ud83d\\ude00","body":"ok"}', headers: { 'content-type': 'application/json' } });
    expect(pair.status).toBe(201);
    expect(pair.body.name).toBe('pair 😀');
  });

  it('refuses an empty PATCH on every resource alike, naming the fields it could change', async () => {
    for (const op of operations.filter((o) => o.method === 'PATCH')) {
      const notObject = await t.api('PATCH', pathOf(op), { raw: 'null', headers: { 'content-type': 'application/json' } });
      expect(errorsOf(notObject), op.name).toEqual([{ field: 'body', code: 'invalid_type', message: 'body must be an object, not null.' }]);
      for (const options of [{ body: {} }, {}]) {
        const res = await t.api('PATCH', pathOf(op), options);
        expectEnvelope(res, 422, 'validation_failed');
        expect(errorsOf(res), op.name).toEqual([{ field: 'body', code: 'empty', message: `Give at least one field to change: ${Object.keys(op.body!.shape).join(', ')}.` }]);
      }
    }
  });
});

describe('messages a person can act on (contract §7)', () => {
  it('gives one plain sentence per bad field, whatever the wrong value, on every operation', async () => {
    const wrongs: unknown[] = [{ a: 1 }, [1, 2], Array(200).fill('x'), -1, 'x'.repeat(300_000), true, null];
    for (const op of operations.filter((o) => o.body)) {
      for (const wrong of wrongs) {
        const body = Object.fromEntries(Object.keys(op.body!.shape).map((k) => [k, wrong]));
        const res = await t.api(op.method, pathOf(op), { body });
        if (res.status === 413) continue;
        expectPlainErrors(res, `${op.name} with ${JSON.stringify(wrong).slice(0, 20)}`);
      }
    }
  });

  it('says what a bad date must be, once', async () => {
    for (const due_on of ['2026-02-30', 'next week', '31/01/2030', '2030-1-5', '', 'Today']) {
      const res = await t.api('POST', '/v1/todos', { body: { title: 'Date', due_on } });
      expectPlainErrors(res, due_on);
      expect(errorsOf(res)).toEqual([
        { field: 'due_on', code: 'invalid', message: 'due_on must be a date as YYYY-MM-DD (such as 2030-01-31), today or tomorrow.' },
      ]);
    }
    const ends = await t.api('POST', '/v1/milestones', { body: { ref: 'D1', name: 'Date', ends_on: '2026-02-30' } });
    expect(errorsOf(ends)).toEqual([{ field: 'ends_on', code: 'invalid_format', message: 'ends_on must be a calendar date as YYYY-MM-DD, such as 2030-01-31.' }]);
  });

  it('states limits in words a person set, not the validator’s', async () => {
    const res = await t.api('GET', '/v1/members?limit=99999999999999999999');
    expect(errorsOf(res)).toEqual([{ field: 'limit', code: 'too_big', message: 'limit must be at most 100.' }]);
    const typed = await t.api('POST', '/v1/tokens', { body: { name: { first: 'x' }, scopes: ['read', 'root'], agent: 'yes' } });
    expect(errorsOf(typed)).toEqual([
      { field: 'name', code: 'invalid_type', message: 'name must be text.' },
      { field: 'scopes.1', code: 'invalid_value', message: 'scopes.1 must be one of read, write, replay or config:write.' },
      { field: 'agent', code: 'invalid_type', message: 'agent must be true or false.' },
    ]);
    expect(typed.body.user_message).toBe('3 fields are not valid: name, scopes.1, agent.');
    const missing = await t.api('POST', '/v1/cards', { body: {} });
    expect(errorsOf(missing)).toEqual([
      { field: 'board', code: 'required', message: 'board is required.' },
      { field: 'title', code: 'required', message: 'title is required.' },
    ]);
  });

  it('names the identifier it could not find, on every operation that takes one', async () => {
    const bodies: Record<string, unknown> = { moveCard: { title: 'x' }, updateCriterion: { title: 'x' }, addCriterion: { title: 'x' }, updateWebhook: { description: 'x' } };
    for (const op of operations.filter((o) => o.params)) {
      const body = op.body ? (bodies[op.name] ?? Object.fromEntries([[Object.keys(op.body.shape)[0]!, 'x']])) : undefined;
      const res = await t.api(op.method, pathOf(op), body === undefined ? {} : { body });
      expect(res.status, `${op.name}: ${res.text}`).toBe(404);
      const first = [...op.path.matchAll(/\{(\w+)\}/g)][0]![1]!;
      expect(res.body.user_message, op.name).toContain(JSON.stringify(`nope-${first}`));
    }
    const card = await t.api('POST', '/v1/todos', { body: { title: 'Mirror', card_id: 'ENG-404' } });
    expect(card.body.user_message).toBe('No card with the identifier "ENG-404".');
  });
});

describe('today and tomorrow as due dates, on every face (contract §6, §7)', () => {
  it("reads them in the caller's time zone on /v1 and MCP, for todos and cards", async () => {
    // 23:30 UTC on 10 March 2026 is already 11 March in Berlin.
    const at = await startTestServer({}, { clock: () => new Date('2026-03-10T23:30:00Z') });
    const client = new Client({ name: 'strict-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${at.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${at.token}` } } }));
      expect((await at.api('POST', '/v1/todos', { body: { title: 'UTC', due_on: 'today' } })).body.due_on).toBe('2026-03-10');
      const me = (await at.api('GET', '/v1/me')).body;
      await at.api('PATCH', `/v1/members/${me.member.id}`, { body: { tz: 'Europe/Berlin' } });
      expect((await at.api('POST', '/v1/todos', { body: { title: 'Today', due_on: 'today' } })).body.due_on).toBe('2026-03-11');
      const tomorrow = (await client.callTool({ name: 'createTodo', arguments: { title: 'Tomorrow', due_on: 'tomorrow' } })) as CallToolResult;
      expect((tomorrow.structuredContent as { due_on: string }).due_on).toBe('2026-03-12');
      await at.api('POST', '/v1/boards', { body: { name: 'Due', slug: 'due', ref_prefix: 'DUE' } });
      const card = await at.api('POST', '/v1/cards', { body: { board: 'due', title: 'Due', due_on: 'tomorrow' } });
      expect(card.body.due_on).toBe('2026-03-12');
      expect((await at.api('PATCH', `/v1/cards/${card.body.ref}`, { body: { due_on: 'today' } })).body.due_on).toBe('2026-03-11');
      expect((await at.api('POST', '/v1/todos', { body: { title: 'Dated', due_on: '2030-01-31' } })).body.due_on).toBe('2030-01-31');
    } finally {
      await client.close().catch(() => {});
      await at.close();
    }
  });
});
