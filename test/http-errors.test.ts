import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, leaksIn } from './helpers/envelope.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

const json = { 'content-type': 'application/json' };

describe('the error envelope on every error path', () => {
  it('400 malformed_request for JSON that does not parse', async () => {
    for (const raw of ['{', '{"name":', 'nul', '{"name":"a"} trailing', "{'name':'a'}"]) {
      const res = await t.api('POST', '/v1/tokens', { raw, headers: json });
      expectEnvelope(res, 400, 'malformed_request');
      // Says what is wrong, not only that something is.
      expect(res.body.user_message).toBe('The body is not valid JSON; send one JSON object.');
    }
  });

  it('400 malformed_request for bytes that are not UTF-8, even inside a string, and nothing is made', async () => {
    const before = (await t.api('GET', '/v1/tokens?limit=100')).body.data.length;
    const inString = Buffer.concat([Buffer.from('{"name":"bad '), Buffer.from([0xff, 0xfe]), Buffer.from('","scopes":["read"]}')]);
    for (const raw of [Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), inString, Buffer.from([0x7b, 0x22, 0xc3, 0x22, 0x3a, 0x31, 0x7d])]) {
      const res = await t.api('POST', '/v1/tokens', { raw, headers: json });
      expectEnvelope(res, 400, 'malformed_request');
      expect(res.body.user_message).toBe('The body is not valid UTF-8; send JSON encoded as UTF-8.');
    }
    expect((await t.api('GET', '/v1/tokens?limit=100')).body.data.length).toBe(before);
    // UTF-8 itself is read as it is: é, 😀 and a character written as a surrogate pair escape.
    const fine = await t.api('POST', '/v1/tokens', { raw: Buffer.from('{"name":"é 😀 \\ud83d\\ude00","scopes":["read"]}'), headers: json });
    expect(fine.status).toBe(201);
    expect(fine.body.name).toBe('é 😀 😀');
  });

  it('400 malformed_request for prototype-poisoning keys', async () => {
    for (const raw of ['{"name":"a","__proto__":{"role":"owner"}}', '{"name":"a","constructor":{"prototype":{"x":1}}}']) {
      const res = await t.api('POST', '/v1/tokens', { raw, headers: json });
      expectEnvelope(res, 400, 'malformed_request');
      expect(res.body.user_message).toMatch(/^The body uses a key tack refuses \(__proto__/);
    }
  });

  it('400 in the envelope for a URL with broken percent-encoding, without echoing it', async () => {
    for (const path of ['/v1/%zz', '/v1/tokens/%E0%A4%A', '/nowhere/%']) {
      const res = await t.api('GET', path);
      expectEnvelope(res, 400, 'malformed_request');
      expect(res.text).not.toContain('%');
      expect(res.body.user_message).toBe('The address is not valid percent-encoding; encode it as UTF-8.');
    }
  });

  it('404, not 405 or 414, for a path parameter longer than any identifier', async () => {
    for (const method of ['GET', 'DELETE', 'PATCH']) {
      const res = await t.api(method, `/v1/snippets/${'a'.repeat(600)}`, method === 'PATCH' ? { body: { name: 'x' } } : {});
      expectEnvelope(res, 404, 'not_found');
      expect(res.body.user_message).toContain('no identifier is longer than 500 characters');
    }
  });

  it('422 too_deep, not 500, for a body nested thousands of levels deep, and nothing is created', async () => {
    const before = (await t.api('GET', '/v1/tokens?limit=100')).body.data.length;
    for (const raw of ['{"name":' + '['.repeat(50_000) + ']'.repeat(50_000) + '}', '['.repeat(100_000) + ']'.repeat(100_000), '{"name":' + '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_001)]) {
      const res = await t.api('POST', '/v1/tokens', { raw, headers: json });
      expectEnvelope(res, 422, 'validation_failed');
      expect(res.body.errors[0]).toMatchObject({ code: 'too_deep' });
    }
    expect((await t.api('GET', '/v1/tokens?limit=100')).body.data.length).toBe(before);
  });

  it('431 in the envelope when the URL or headers are larger than the server reads', async () => {
    const res = await t.api('GET', `/v1/tokens?cursor=${'a'.repeat(100_000)}`);
    expectEnvelope(res, 431, 'headers_too_large');
    const big = await t.api('GET', '/v1/me', { headers: { 'x-padding': 'p'.repeat(100_000) } });
    expectEnvelope(big, 431);
  });

  it('401 for a missing or invalid token', async () => {
    expectEnvelope(await t.api('GET', '/v1/me', { token: null }), 401, 'unauthorized');
    expectEnvelope(await t.api('GET', '/v1/me', { headers: { authorization: 'Basic dXNlcjpwdw==' }, token: null }), 401, 'unauthorized');
    expectEnvelope(await t.api('POST', '/v1/tokens', { token: 'tack_live_nope', body: { name: 'x' } }), 401, 'unauthorized');
  });

  it('401 before the body is read: no 400, 413 or 415 for a caller without a valid token', async () => {
    for (const token of [null, 'tack_live_nope']) {
      expectEnvelope(await t.api('POST', '/v1/tokens', { token, raw: '{', headers: json }), 401, 'unauthorized');
      expectEnvelope(await t.api('POST', '/v1/tokens', { token, raw: 'x', headers: { 'content-type': 'text/plain' } }), 401, 'unauthorized');
      expectEnvelope(await t.api('POST', '/v1/tokens', { token, raw: 'x'.repeat(5 * 1024 * 1024), headers: json }), 401, 'unauthorized');
    }
  });

  it('403 insufficient_scope for a token without the scope', async () => {
    const reader = await t.api('POST', '/v1/tokens', { body: { name: 'reader', scopes: ['read'] } });
    expect(reader.status).toBe(201);
    const res = await t.api('POST', '/v1/tokens', { token: reader.body.token, body: { name: 'x' } });
    expectEnvelope(res, 403, 'insufficient_scope');
  });

  it('404 not_found for unknown routes, inside and outside /v1, and <resource>_not_found for missing things', async () => {
    expectEnvelope(await t.api('GET', '/nowhere'), 404, 'not_found');
    expectEnvelope(await t.api('GET', '/v1/nowhere'), 404, 'not_found');
    expectEnvelope(await t.api('POST', '/v1/nowhere/deeper', { body: {} }), 404, 'not_found');
    expectEnvelope(await t.api('GET', '/v1/nowhere', { token: null }), 404, 'not_found');
    expectEnvelope(await t.api('DELETE', '/v1/tokens/tok_doesnotexist'), 404, 'token_not_found');
    expectEnvelope(await t.api('PATCH', '/v1/members/mem_doesnotexist', { body: { name: 'x' } }), 404, 'member_not_found');
  });

  it('405 with Allow for a known path and another method', async () => {
    const cases: [string, string, string[]][] = [
      ['PUT', '/v1/tokens', ['GET', 'HEAD', 'POST']],
      ['DELETE', '/v1/members', ['GET', 'HEAD', 'POST']],
      ['POST', '/v1/me', ['GET', 'HEAD']],
      ['GET', '/v1/tokens/tok_abc', ['DELETE']],
      ['OPTIONS', '/v1/members/mem_abc', ['DELETE', 'PATCH']],
      // The API's routes that are not operations are known paths too.
      ['POST', '/v1/openapi.json', ['GET', 'HEAD']],
      ['DELETE', '/healthz', ['GET', 'HEAD']],
      ['POST', '/readyz', ['GET', 'HEAD']],
      ['PUT', '/mcp', ['POST']],
    ];
    for (const [method, path, allow] of cases) {
      const res = await t.api(method, path);
      expectEnvelope(res, 405, 'method_not_allowed');
      const got = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim()).sort();
      expect(got, `${method} ${path}`).toEqual(allow);
    }
  });

  it('409 for a conflict', async () => {
    const first = await t.api('POST', '/v1/members', { body: { name: 'Ann', email: 'ann@example.com' } });
    expect(first.status).toBe(201);
    const again = await t.api('POST', '/v1/members', { body: { name: 'Ann B', email: 'ANN@example.com' } });
    expectEnvelope(again, 409, 'member_conflict');
  });

  it('413 for a body over the server limit', async () => {
    const res = await t.api('POST', '/v1/tokens', { raw: JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024) }), headers: json });
    expectEnvelope(res, 413, 'payload_too_large');
  });

  it('415 for a body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonx']) {
      const res = await t.api('POST', '/v1/tokens', { raw: 'name=x', headers: { 'content-type': type } });
      expectEnvelope(res, 415, 'unsupported_media_type');
    }
    expectEnvelope(await t.api('POST', '/v1/tokens', { raw: '{"name":"x"}' }), 415, 'unsupported_media_type');
  });

  it('422 with errors[{field, code, message}] naming each bad field', async () => {
    const res = await t.api('POST', '/v1/tokens', { body: { name: '', scopes: ['read', 'everything'], agent: 'yes' } });
    expectEnvelope(res, 422, 'validation_failed');
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['agent', 'name', 'scopes.1']);
    const query = await t.api('GET', '/v1/members?limit=0');
    expectEnvelope(query, 422, 'validation_failed');
    expect(query.body.errors[0].field).toBe('limit');
    const key = await t.api('POST', '/v1/tokens', { body: { name: 'x' }, headers: { 'idempotency-key': 'has space' } });
    expectEnvelope(key, 422, 'validation_failed');
    expect(key.body.errors[0].field).toBe('Idempotency-Key');
  });

  it('5xx carries no stack, SQL, path or message of the real error', async () => {
    await t.api('GET', '/v1/me'); // the token is now cached, so the failure is in the operation itself
    await t.database!.query('alter table members rename to members_gone');
    try {
      for (const [method, path, body] of [
        ['GET', '/v1/members', undefined],
        ['POST', '/v1/members', { name: 'Broken' }],
      ] as const) {
        const res = await t.api(method, path, { body });
        expectEnvelope(res, 500, 'internal_error');
        expect(leaksIn(res.text, [t.token])).toEqual([]);
        expect(res.text).not.toMatch(/members|does not exist|42P01/);
      }
    } finally {
      await t.database!.query('alter table members_gone rename to members');
    }
    expect((await t.api('GET', '/v1/me')).status).toBe(200);
  });
});

describe('X-Request-Id', () => {
  it('is on every response, unique, and equal to request_id in errors', async () => {
    const responses = await Promise.all([
      t.api('GET', '/healthz', { token: null }),
      t.api('GET', '/readyz', { token: null }),
      t.api('GET', '/v1/openapi.json', { token: null }),
      t.api('GET', '/v1/me'),
      t.api('HEAD', '/v1/me'),
      t.api('POST', '/v1/tokens', { body: { name: 'rid' } }),
      t.api('GET', '/nowhere'),
      t.api('PUT', '/v1/me'),
      t.api('GET', '/v1/me', { token: null }),
    ]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const [i, id] of ids.entries()) expect(id, `response ${i}`).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of responses) if (r.status >= 400) expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
  });

  it('is not taken from the client', async () => {
    const res = await t.api('GET', '/v1/me', { headers: { 'x-request-id': 'req_chosen_by_client' } });
    expect(res.headers.get('x-request-id')).not.toBe('req_chosen_by_client');
  });
});
