import { createConfig, lintFromString } from '@redocly/openapi-core';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../src/operations/index.js';
import { VERSION } from '../src/version.js';
import { checkAnswer } from './helpers/openapi-conformance.js';
import { answered, startTestServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/web.js';

let t: TestServer;
// A parsed JSON document walked by path; typing all of OpenAPI here would add nothing.
let doc: any;
beforeAll(async () => {
  t = await startTestServer();
  const res = await t.api('GET', '/v1/openapi.json', { token: null });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = res.body;
});
afterAll(async () => t?.close());

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Calls `visit` on every object of a parsed JSON document, with its JSON pointer. */
function walk(node: any, path: string, visit: (node: any, path: string) => void): void {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${path}/${i}`, visit));
  else if (node !== null && typeof node === 'object') {
    visit(node, path);
    for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`, visit);
  }
}
const entryOf = (op: { path: string; method: string }) => doc.paths[op.path][op.method.toLowerCase()];
const deref = (node: any) => (node?.$ref ? node.$ref.split('/').slice(1).reduce((n: any, k: string) => n[k], doc) : node);

describe('GET /v1/openapi.json', () => {
  it('is OpenAPI 3.1, needs no token, and names its license and contact', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.version).toEqual(expect.any(String));
    expect(doc.info.license.name).toEqual(expect.any(String));
    expect(doc.info.contact.name).toEqual(expect.any(String));
  });

  it('names the server by its absolute URL (APP_URL), and the version the server itself reports', async () => {
    // A generator or a validating proxy reads this as it is: a relative `/v1` needed a hand edit.
    expect(doc.servers).toEqual([expect.objectContaining({ url: `${t.url}/v1` })]);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(doc.info.version).toBe(VERSION);
    expect(pkg.version).toBe(VERSION);
    const withAppUrl = await startTestServer({ APP_URL: 'https://tack.example.com/' });
    try {
      const res = await withAppUrl.api('GET', '/v1/openapi.json', { token: null });
      expect(res.body.servers).toEqual([expect.objectContaining({ url: 'https://tack.example.com/v1' })]);
    } finally {
      await withAppUrl.close();
    }
  });

  it('has exactly one operationId per operation in the table, at its method and path, and one for itself', () => {
    const found: string[] = [];
    for (const [path, item] of Object.entries<Record<string, { operationId?: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        expect(op.operationId, `${method} ${path}`).toEqual(expect.any(String));
        found.push(op.operationId!);
      }
    }
    expect(new Set(found).size).toBe(found.length);
    expect(found.sort()).toEqual([...operations.map((op) => op.name), 'getOpenApiDocument'].sort());
    for (const op of operations) expect(entryOf(op)?.operationId, `${op.method} ${op.path}`).toBe(op.name);
  });

  it('describes each operation with its parameters, body, declared tag and success', () => {
    const tags = new Map(doc.tags.map((tag: { name: string; description: string }) => [tag.name, tag.description]));
    for (const op of operations) {
      const entry = entryOf(op);
      expect(Object.keys(entry.responses), op.name).toContain(String(op.status));
      const inPath = (entry.parameters ?? []).filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name);
      expect(inPath.sort(), op.name).toEqual([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
      if (op.body) expect(entry.requestBody?.content?.['application/json'], op.name).toBeDefined();
      for (const tag of entry.tags) expect(tags.get(tag), `${op.name}: tag ${tag}`).toEqual(expect.stringMatching(/\w/));
      for (const [status, response] of Object.entries<any>(entry.responses)) {
        const description = deref(response).description as string;
        expect(description, `${op.name} ${status}`).toMatch(/\w{3}/);
        expect(description, `${op.name} ${status}`).not.toMatch(/^Default Response$/i);
      }
    }
  });

  it('declares every error status each operation can answer, all with the one Error schema', () => {
    expect(doc.components.schemas.Error.required).toEqual(['code', 'http_status', 'user_message', 'request_id']);
    expect(doc.components.schemas.Error.properties.errors.items).toEqual({ $ref: '#/components/schemas/FieldError' });
    for (const op of operations) {
      const statuses = Object.keys(entryOf(op).responses).map(Number);
      const expected = [400, 401, 403, 408, 422, 429, 431, 500, 503];
      if (op.params) expected.push(404);
      if (!op.readOnly) expected.push(409, 413, 415);
      for (const status of expected) expect(statuses, `${op.name} answers ${status}`).toContain(status);
      for (const status of statuses.filter((s) => s >= 400)) {
        const response = deref(entryOf(op).responses[status]);
        expect(response.content['application/json'].schema.allOf, `${op.name} ${status}`).toEqual([{ $ref: '#/components/schemas/Error' }]);
        expect(response.headers['X-Request-Id'], `${op.name} ${status}`).toEqual({ $ref: '#/components/headers/X-Request-Id' });
      }
      expect(deref(entryOf(op).responses[429]).headers['Retry-After']).toBeDefined();
      expect(deref(entryOf(op).responses[422]).content['application/json'].schema.required).toEqual(['errors']);
    }
  });

  it('declares the headers, the Idempotency-Key on writes, and the bearer and session schemes', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    // The web app's cookie is a caller of /v1 too (contract section 8): either scheme will do.
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'tack_session' });
    expect(doc.security).toEqual([{ bearer: [] }, { session: [] }]);
    for (const name of ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed']) {
      expect(doc.components.headers[name]?.description, name).toEqual(expect.any(String));
    }
    for (const op of operations) {
      const refs = (entryOf(op).parameters ?? []).map((p: { $ref?: string }) => p.$ref);
      expect(refs.includes('#/components/parameters/IdempotencyKey'), op.name).toBe(!op.readOnly);
      const success = entryOf(op).responses[String(op.status)];
      expect(Object.keys(success.headers), op.name).toEqual(
        expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', ...(op.readOnly ? [] : ['Idempotent-Replayed'])]),
      );
    }
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false });
  });

  it('says what each success answers with, where the generic words would be wrong', () => {
    const success = (name: string) => {
      const op = operations.find((o) => o.name === name)!;
      return entryOf(op).responses[String(op.status)].description as string;
    };
    expect(success('createSigninLink')).toMatch(/sign-in link/);
    expect(success('listCriteria')).toMatch(/in their order on the card/);
    expect(success('listSnippetVersions')).toMatch(/versions, newest first/);
    expect(success('getSnippetVersion')).toMatch(/^The version/);
    expect(success('listCardMoves')).toMatch(/One entry per state/);
    expect(success('rotateSnippetLink')).toMatch(/new public link/);
    expect(success('getMilestoneStatus')).toMatch(/counts/);
    expect(success('runJob')).toMatch(/What the run did/);
    // A list kept in another order never says "newest first".
    expect(success('listCriteria')).not.toMatch(/newest/);
  });

  it('writes dates as format: date and moments as format: date-time', () => {
    const card = deref(entryOf(operations.find((op) => op.name === 'getCard')!).responses['200'].content['application/json'].schema);
    expect(card.properties.due_on).toEqual({ type: ['string', 'null'], format: 'date' });
    expect(card.properties.created_at).toEqual({ type: 'string', format: 'date-time' });
    const milestone = entryOf(operations.find((op) => op.name === 'createMilestone')!).requestBody.content['application/json'].schema;
    expect(milestone.properties.ends_on).toEqual({ type: 'string', format: 'date' });
  });

  it('gives every branch of a union its own type: a due date is a date or today/tomorrow, both strings, and null where it clears', () => {
    const body = (name: string) => entryOf(operations.find((op) => op.name === name)!).requestBody.content['application/json'].schema;
    const dueOn = [{ type: 'string', format: 'date' }, { type: 'string', enum: ['today', 'tomorrow'] }];
    expect(body('createTodo').properties.due_on).toEqual({ description: expect.any(String), anyOf: dueOn });
    expect(body('createCard').properties.due_on.anyOf).toEqual(dueOn);
    expect(body('updateTodo').properties.due_on).toEqual({ description: expect.stringContaining('null clears it'), anyOf: [...dueOn, { type: 'null' }] });
    expect(body('moveCard').properties.due_on.anyOf).toEqual([...dueOn, { type: 'null' }]);
    // Anywhere in the document: no branch without a type (or a reference), no union directly in a union.
    const untyped: string[] = [];
    walk(doc, '', (node, path) => {
      for (const key of ['anyOf', 'oneOf']) {
        for (const [i, branch] of (Array.isArray(node[key]) ? node[key] : []).entries()) {
          if (branch.type === undefined && branch.$ref === undefined) untyped.push(`${path}/${key}/${i}`);
        }
      }
    });
    expect(untyped).toEqual([]);
  });

  it('bounds no integer by the safe-integer range (zod writes ±2^53 - 1 on every int)', () => {
    const bounds: string[] = [];
    walk(doc, '', (node, path) => {
      for (const key of ['minimum', 'maximum']) if (Math.abs(Number(node[key])) >= Number.MAX_SAFE_INTEGER) bounds.push(`${path}/${key}`);
    });
    expect(bounds).toEqual([]);
  });

  it('describes each resource once, by name, and every answer refers to it', () => {
    const names = ['Me', 'Organization', 'Member', 'ListedMember', 'Token', 'CreatedToken', 'Snippet', 'SnippetVersion', 'SnippetLink', 'Board', 'Card', 'CardMoves', 'CardLinks', 'Criterion', 'Comment', 'Todo', 'Milestone', 'JobResult', 'Session', 'SigninLink', 'SearchResult', 'Event', 'Webhook', 'CreatedWebhook', 'WebhookDelivery'];
    expect(Object.keys(doc.components.schemas).sort()).toEqual([...names, 'Error', 'FieldError'].sort());
    const inline: string[] = [];
    for (const op of operations.filter((o) => o.output)) {
      const schema = entryOf(op).responses[String(op.status)].content['application/json'].schema;
      // The answer is a resource, or a page of one: `{data: [<resource>], next_cursor}`.
      const named = schema.$ref ?? (schema.properties?.data?.items?.$ref as string | undefined);
      if (!named?.startsWith('#/components/schemas/')) inline.push(`${op.name}: ${JSON.stringify(schema).slice(0, 120)}`);
    }
    // An operation answering with a schema not named in src/operations/resources.ts is listed here.
    expect(inline).toEqual([]);
    const refs = new Map<string, number>();
    walk(doc, '', (node) => {
      if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/')) refs.set(node.$ref, (refs.get(node.$ref) ?? 0) + 1);
    });
    expect(refs.get('#/components/schemas/Card')).toBe(4);
    expect(refs.get('#/components/schemas/Todo')).toBe(5);
    // createMember, updateMember and Me.member; listMembers answers ListedMember (a Member with the caller's abilities).
    expect(refs.get('#/components/schemas/Member')).toBe(3);
    for (const name of names) expect(refs.get(`#/components/schemas/${name}`), name).toBeGreaterThan(0);
    // The card's fields are written once: only its component has them (a property and a required name).
    expect(JSON.stringify(doc).match(/"board_id"/g)).toHaveLength(2);
  });

  it('leaves out the routes that are not operations', () => {
    for (const path of Object.keys(doc.paths)) expect(['/healthz', '/readyz', '/v1/openapi.json']).not.toContain(path);
  });

  it('describes its own address: no token, a JSON object, and the errors it can answer', () => {
    expect(Object.keys(doc.paths['/openapi.json'])).toEqual(['get']);
    const own = doc.paths['/openapi.json'].get;
    expect(own).toMatchObject({ operationId: 'getOpenApiDocument', summary: expect.stringMatching(/\w/), tags: ['openapi'], security: [] });
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toContain('openapi');
    expect(own.parameters).toBeUndefined();
    expect(own.responses['200'].content['application/json'].schema).toMatchObject({ type: 'object', required: ['openapi', 'info', 'paths'] });
    expect(Object.keys(own.responses['200'].headers)).toEqual(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
    expect(Object.keys(own.responses)).toEqual(['200', '400', '408', '422', '429', '431', '500', '503']);
    for (const status of ['400', '408', '422', '429', '431', '500', '503']) expect(deref(own.responses[status]).content['application/json'].schema.allOf).toEqual([{ $ref: '#/components/schemas/Error' }]);
    // Not an operation of the table: no MCP tool, no CLI command is made of it.
    expect(operations.map((op) => op.name)).not.toContain('getOpenApiDocument');
  });

  it('refuses a query parameter, as every operation does (422 unknown_field), with or without a token', async () => {
    for (const token of [null, undefined]) {
      const res = await t.api('GET', '/v1/openapi.json?v=2', { token });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        user_message: 'v is not accepted: this request takes no query parameters.',
        errors: [{ field: 'v', code: 'unknown_field', message: 'v is not accepted: this request takes no query parameters.' }],
      });
    }
    expect(answered.get('getOpenApiDocument')).toEqual(new Set([200, 422]));
  });

  it("passes Redocly's recommended rules without an error or a warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`)).toEqual([]);
  }, 60_000);
});

describe('the conformance check', () => {
  const base = { method: 'GET', url: '/v1/cards/ENG-1' };
  const headers = (more: Record<string, string> = {}) => new Headers({ 'content-type': 'application/json', 'x-request-id': 'req_0123456789abcdef01234567', ...more });
  const error = (status: number, extra: object = {}) =>
    JSON.stringify({ code: 'x', http_status: status, user_message: 'No.', request_id: 'req_0123456789abcdef01234567', ...extra });

  it('accepts an answer the document describes', () => {
    expect(checkAnswer({ ...base, status: 404, headers: headers(), text: error(404) }).problems).toEqual([]);
  });

  it('finds a status, a body or a header the document does not describe', () => {
    const problems = (status: number, text: string, h = headers()) => checkAnswer({ ...base, status, headers: h, text }).problems;
    expect(problems(418, error(418))).toEqual([expect.stringContaining('does not declare 418')]);
    expect(problems(409, error(409))).toEqual([expect.stringContaining('does not declare 409')]);
    expect(problems(404, error(403))).toEqual([expect.stringContaining('does not match')]);
    expect(problems(404, JSON.stringify({ code: 'x' }))).toEqual([expect.stringContaining('does not match')]);
    expect(problems(422, error(422))).toEqual([expect.stringContaining('does not match')]);
    expect(problems(200, JSON.stringify({ id: 'crd_1' }))).toEqual([expect.stringContaining('does not match')]);
    expect(problems(404, error(404), new Headers({ 'content-type': 'application/json' }))).toEqual([expect.stringContaining('x-request-id is missing')]);
    expect(problems(404, error(404), headers({ 'idempotent-replayed': 'true' }))).toEqual([expect.stringContaining('idempotent-replayed is sent but not declared')]);
    expect(problems(404, error(404), headers({ 'ratelimit-remaining': 'many' }))).toEqual([expect.stringContaining('ratelimit-remaining')]);
  });

  it('checks nothing for a request that addresses no operation', () => {
    expect(checkAnswer({ method: 'GET', url: '/healthz', status: 200, headers: new Headers(), text: '{}' })).toEqual({ problems: [] });
  });
});

describe('replaying traffic against the document', () => {
  const json = { 'content-type': 'application/json' };

  it('every operation answers as documented, successes and errors alike', async () => {
    const api = t.api;
    const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
      const res = await api(method, path, { body, headers });
      expect(res.status, `${method} ${path}: ${res.text.slice(0, 300)}`).toBeLessThan(300);
      return res.body;
    };
    // Successes: every operation once (the client checks each answer against the document).
    const me = await ok('GET', '/v1/me');
    await ok('GET', '/v1/members?limit=1');
    const member = await ok('POST', '/v1/members', { name: 'Replay', email: 'replay@example.com', tz: 'Europe/Berlin' });
    await ok('PATCH', `/v1/members/${member.id}`, { name: 'Replayed' });
    const leaving = await ok('POST', '/v1/members', { name: 'Leaving', role: 'viewer' });
    await ok('DELETE', `/v1/members/${leaving.id}`);
    const token = await ok('POST', '/v1/tokens', { name: 'replay', scopes: ['read'] });
    await ok('GET', '/v1/tokens');
    const snippet = await ok('POST', '/v1/snippets', { type: 'txt', name: 'Replay', body: 'one' });
    await ok('GET', '/v1/snippets?q=replay');
    await ok('GET', `/v1/snippets/${snippet.id}`);
    await ok('PATCH', `/v1/snippets/${snippet.id}`, { body: 'two' }, { 'idempotency-key': 'replay-snippet' });
    await ok('PATCH', `/v1/snippets/${snippet.id}`, { body: 'two' }, { 'idempotency-key': 'replay-snippet' });
    await ok('GET', `/v1/snippets/${snippet.id}/versions`);
    await ok('GET', `/v1/snippets/${snippet.id}/versions/1`);
    await ok('POST', `/v1/snippets/${snippet.id}/link`);
    const board = await ok('POST', '/v1/boards', { name: 'Replay', slug: 'replay', ref_prefix: 'RPL', gated: true });
    await ok('GET', '/v1/boards');
    await ok('GET', `/v1/boards/${board.slug}`);
    await ok('GET', `/v1/boards/${board.slug}/moves`);
    await ok('PATCH', `/v1/boards/${board.slug}`, { name: 'Replay board' });
    const spare = await ok('POST', '/v1/boards', { name: 'Spare' });
    await ok('DELETE', `/v1/boards/${spare.id}`);
    const milestone = await ok('POST', '/v1/milestones', { ref: 'R1', name: 'Replay', ends_on: '2031-01-31' });
    await ok('GET', '/v1/milestones');
    await ok('GET', `/v1/milestones/${milestone.ref}`);
    await ok('GET', `/v1/milestones/${milestone.ref}/status`);
    const other = await ok('POST', '/v1/milestones', { ref: 'R2', name: 'Other' });
    await ok('PATCH', `/v1/milestones/${other.ref}`, { ends_on: '2031-02-28' });
    await ok('DELETE', `/v1/milestones/${other.ref}`);
    const card = await ok('POST', '/v1/cards', { board: 'replay', title: 'Replay', due_on: 'tomorrow', milestone: 'R1', criteria: ['a'] });
    await ok('GET', '/v1/cards?board=replay');
    await ok('GET', '/v1/search?q=repl');
    await ok('GET', `/v1/cards/${card.ref}`);
    await ok('GET', `/v1/cards/${card.ref}/moves`);
    await ok('GET', `/v1/cards/${card.ref}/links`);
    await ok('DELETE', `/v1/cards/${(await ok('POST', '/v1/cards', { board: 'replay', title: 'Started', workflow_status: 'in_review' })).id}`);
    await ok('PATCH', `/v1/cards/${card.ref}`, { workflow_status: 'in_progress', due_on: null });
    const criteria = await ok('GET', `/v1/cards/${card.ref}/criteria`);
    const second = await ok('POST', `/v1/cards/${card.ref}/criteria`, { title: 'b' });
    await ok('PATCH', `/v1/cards/${card.ref}/criteria/${criteria.data[0].id}`, { done: true, position: 1 });
    await ok('DELETE', `/v1/cards/${card.ref}/criteria/${second.id}`);
    const todo = await ok('POST', '/v1/todos', { title: 'Replay', due_on: 'today' });
    await ok('GET', '/v1/todos?due=week&done=false');
    await ok('POST', `/v1/todos/${todo.id}/done`);
    await ok('POST', `/v1/todos/${todo.id}/reopen`);
    await ok('PATCH', `/v1/todos/${todo.id}`, { title: 'Replayed', due_on: 'tomorrow' });
    await ok('DELETE', `/v1/todos/${todo.id}`);
    const hook = await ok('POST', '/v1/webhooks', { url: 'https://93.184.216.34/hook', events: ['board.'], description: 'Replay' });
    await ok('PATCH', `/v1/boards/${board.slug}`, { name: 'Replay board, heard' });
    await ok('GET', '/v1/webhooks');
    await ok('GET', `/v1/webhooks/${hook.id}`);
    await ok('PATCH', `/v1/webhooks/${hook.id}`, { enabled: false });
    const hookDeliveries = await ok('GET', `/v1/webhooks/${hook.id}/deliveries`);
    await ok('POST', `/v1/webhooks/${hook.id}/deliveries/${hookDeliveries.data[0].id}/redeliver`);
    await ok('POST', `/v1/webhooks/${hook.id}/rotate-secret`);
    await ok('DELETE', `/v1/webhooks/${hook.id}`);
    await signIn(t);
    const sessions = await ok('GET', '/v1/sessions');
    await ok('DELETE', `/v1/sessions/${sessions.data[0].id}`);
    const comment = await ok('POST', `/v1/cards/${card.ref}/comments`, { body: 'Looks **good**' });
    await ok('PATCH', `/v1/cards/${card.ref}/comments/${comment.id}`, { body: 'Looks good to me' });
    await ok('GET', `/v1/cards/${card.ref}/comments?limit=1`);
    await ok('DELETE', `/v1/cards/${card.ref}/comments/${comment.id}`);
    await ok('GET', `/v1/cards/${card.ref}/activity?type=card.,criterion.&limit=2`);
    await ok('GET', `/v1/events?subject=${card.ref}&agent=false&since=2020-01-01T00:00:00Z`);
    await ok('DELETE', `/v1/cards/${card.id}`);
    await ok('DELETE', `/v1/snippets/${snippet.id}`);
    await ok('DELETE', `/v1/tokens/${token.id}`);
    const job = await api('POST', '/v1/jobs/todo-reminders/run');
    expect([200, 503], job.text).toContain(job.status);

    // Errors the suite provokes, each answered as documented.
    const reader = (await ok('POST', '/v1/tokens', { name: 'reader', scopes: ['read'] })).token as string;
    const errors: [number, Promise<{ status: number }>][] = [
      [400, api('POST', '/v1/tokens', { raw: '{', headers: json })],
      [400, api('GET', '/v1/members?cursor=garbage')],
      [401, api('GET', '/v1/me', { token: null })],
      [401, api('POST', '/v1/cards', { token: 'tack_live_nope', body: {} })],
      [403, api('POST', '/v1/boards', { token: reader, body: { name: 'No' } })],
      [404, api('GET', '/v1/cards/NOPE-1')],
      [404, api('DELETE', '/v1/tokens/tok_missing')],
      [404, api('GET', '/v1/snippets/snp_missing/versions/1')],
      [409, api('POST', '/v1/boards', { body: { name: 'Again', slug: 'replay' } })],
      [409, api('PATCH', `/v1/members/${member.id}`, { body: { name: 'Other' }, headers: { 'idempotency-key': 'replay-member' } }).then(() =>
        api('PATCH', `/v1/members/${member.id}`, { body: { name: 'Different' }, headers: { 'idempotency-key': 'replay-member' } }),
      )],
      [413, api('POST', '/v1/snippets', { raw: JSON.stringify({ type: 'txt', name: 'big', body: 'x'.repeat(5 * 1024 * 1024) }), headers: json })],
      [415, api('POST', '/v1/todos', { raw: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
      [422, api('GET', '/v1/members?limit=1e2')],
      [422, api('GET', '/v1/me?unknown=1')],
      [422, api('PATCH', `/v1/cards/${card.ref}`, { body: { status: 'done' } })],
      [422, api('PATCH', `/v1/boards/${board.id}`, { body: {} })],
      [422, api('GET', '/v1/cards/%00')],
      [431, api('GET', `/v1/tokens?cursor=${'a'.repeat(100_000)}`)],
    ];
    for (const [status, pending] of errors) expect((await pending).status).toBe(status);
    expect(me.member.id).toEqual(expect.any(String));

    await t.api('GET', '/v1/me'); // the token is cached, so the next failure is the operation's own
    await t.database!.query('alter table boards rename to boards_gone');
    try {
      expect((await api('GET', '/v1/boards')).status).toBe(500);
    } finally {
      await t.database!.query('alter table boards_gone rename to boards');
    }

    for (const op of operations) {
      expect([...(answered.get(op.name) ?? [])].some((s) => s < 300), `${op.name} was answered with a success and checked`).toBe(true);
    }
    const statuses = new Set([...answered.values()].flatMap((s) => [...s]));
    for (const status of [200, 201, 204, 400, 401, 403, 404, 409, 413, 415, 422, 431, 500]) expect(statuses, `a ${status} was checked`).toContain(status);
  }, 60_000);

  it('429 answers as documented, with Retry-After', async () => {
    const limited = await startTestServer({ RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await limited.api('GET', '/v1/me')).status);
      expect(codes).toContain(429);
      expect(answered.get('getMe')).toContain(429);
    } finally {
      await limited.close();
    }
  });
});
