import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './helpers/envelope.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * JSON is UTF-8 (RFC 8259), and tack reads it as nothing else (issue 27 item 19): a body that
 * says another charset is refused with 415 `unsupported_media_type` and changes nothing,
 * rather than read as UTF-8 into garbage; `charset=utf-8` in any spelling is taken.
 */

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const todo = (title: string) => JSON.stringify({ title });

describe('the charset of a JSON body', () => {
  it('refuses charset=utf-16 (and other non-UTF-8 charsets) with 415, creating nothing', async () => {
    const utf16 = Buffer.from(`\ufeff${todo('sixteen bits')}`, 'utf16le');
    const refused = await t.api('POST', '/v1/todos', { raw: utf16, headers: { 'content-type': 'application/json; charset=utf-16' } });
    expectEnvelope(refused, 415, 'unsupported_media_type');
    expect(refused.body.user_message).toContain('utf-16');
    // The same bytes a UTF-8 reader would take whole are still refused when the label says otherwise.
    for (const label of ['charset=ISO-8859-1', 'charset="utf-16le"', 'Charset=UTF-32']) {
      expectEnvelope(await t.api('POST', '/v1/todos', { raw: todo('labelled'), headers: { 'content-type': `application/json; ${label}` } }), 415, 'unsupported_media_type');
    }
    expect(await t.database!.query('select title from todos')).toEqual([]);
  });

  it('takes charset=utf-8 however it is written, and no charset', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"', 'application/json']) {
      const res = await t.api('POST', '/v1/todos', { raw: todo(`as ${type}`), headers: { 'content-type': type } });
      expect(res.status, `${type}: ${res.text}`).toBe(201);
      expect(res.body.title).toBe(`as ${type}`);
    }
  });
});
