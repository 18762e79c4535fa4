import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { REDIS_URL } from './helpers/services.js';
import { runTack } from './helpers/tack.js';
import { waitFor } from './helpers/wait.js';

/**
 * MCP at the level of JSON-RPC messages, as strict clients and fuzzers send them: what the
 * SDK would answer with a validator's dump, or drop without a word, tack answers plainly, on
 * both transports; a batch is counted call by call; a page of another origin is refused.
 */

let t: TestServer;
let home: string;
const LIMIT = 40;
beforeAll(async () => {
  await ensureCliBuilt();
  t = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  home = mkdtempSync(join(tmpdir(), 'tack-mcp-protocol-'));
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

interface JsonRpcAnswer {
  id: number | null;
  result?: { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };
  error?: { code: number; message: string };
}

/** Each message POSTed to /mcp alone; its JSON-RPC answer. */
async function overHttp(messages: object[], token = t.token): Promise<JsonRpcAnswer[]> {
  const answers: JsonRpcAnswer[] = [];
  for (const message of messages) {
    const res = await t.api('POST', '/mcp', { token, body: message, headers: HEADERS });
    expect(res.status, res.text).toBe(200);
    answers.push(res.body);
  }
  return answers;
}

/** The lines piped to `tack mcp` after an initialize; its answers but the initialize's, in order. */
async function overStdio(lines: string[]): Promise<JsonRpcAnswer[]> {
  const input = [JSON.stringify(INITIALIZE), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), ...lines].join('\n') + '\n';
  const res = await runTack(['mcp'], { env: { HOME: home, XDG_CONFIG_HOME: home, TACK_URL: t.url, TACK_TOKEN: t.token }, input });
  expect(res.code, res.stderr).toBe(0);
  return res.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as JsonRpcAnswer)
    .filter((answer) => answer.id !== 0);
}

const call = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

async function todoTitles(): Promise<string[]> {
  return (await t.api('GET', '/v1/todos?limit=100')).body.data.map((todo: { title: string }) => todo.title);
}

describe('a malformed tools/call', () => {
  const malformed = [
    call(1, { name: 'getMe', arguments: [] }),
    call(2, { name: 'getMe', arguments: 'x' }),
    call(3, { name: 'getMe', arguments: null }),
    call(4, { arguments: {} }),
    call(5, { name: 'noSuchTool', arguments: {} }),
  ];
  const expected = [
    { id: 1, error: { code: -32602, message: "params.arguments must be an object of getMe's arguments by name." } },
    { id: 2, error: { code: -32602, message: "params.arguments must be an object of getMe's arguments by name." } },
    { id: 3, error: { code: -32602, message: "params.arguments must be an object of getMe's arguments by name." } },
    { id: 4, error: { code: -32602, message: 'tools/call needs params.name: the name of the tool to call, as tools/list gives it.' } },
    { id: 5, error: { code: -32602, message: expect.stringMatching(/^There is no tool named "noSuchTool"; tools\/list names the \d+ there are\.$/) } },
  ];

  it('is invalid params (-32602) with a sentence, over Streamable HTTP', async () => {
    expect(await overHttp(malformed)).toEqual(expected.map((e) => expect.objectContaining(e)));
  });

  it('is the same answer over stdio', async () => {
    expect(await overStdio(malformed.map((m) => JSON.stringify(m)))).toEqual(expected.map((e) => expect.objectContaining(e)));
  }, 30_000);
});

describe('a tool argument named __proto__', () => {
  const poisoned = (id: number, title: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"createTodo","arguments":{"title":"${title}","__proto__":{"x":1}}}}`;
  const refusal = {
    isError: true,
    _meta: {
      'tack/error': expect.objectContaining({
        code: 'validation_failed',
        errors: [{ field: '__proto__', code: 'unknown_field', message: expect.stringMatching(/^__proto__ is not an argument of createTodo; .*takes title, /) }],
      }),
    },
  };

  it('is refused as unknown over Streamable HTTP, as any other, and nothing is made', async () => {
    const res = await t.api('POST', '/mcp', { raw: poisoned(1, 'proto over http'), headers: { ...HEADERS, 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject(refusal);
    expect(await todoTitles()).not.toContain('proto over http');
  });

  it('is refused the same way over stdio, not dropped', async () => {
    const [answer] = await overStdio([poisoned(1, 'proto over stdio')]);
    expect(answer!.result).toMatchObject(refusal);
    expect(await todoTitles()).not.toContain('proto over stdio');
  }, 30_000);
});

describe('a message that cannot be read', () => {
  it('is a JSON-RPC parse error (-32700) over HTTP; an empty batch an invalid request (-32600)', async () => {
    const broken = await t.api('POST', '/mcp', { raw: '{"jsonrpc": "2.0", "id": 1,', headers: { ...HEADERS, 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON.' } });
    // Bytes that are not UTF-8 are no JSON text, though they would decode to one with U+FFFD in it.
    const bytes = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'), Buffer.from([0xff]), Buffer.from('"}}')]);
    const notUtf8 = await t.api('POST', '/mcp', { raw: bytes, headers: { ...HEADERS, 'content-type': 'application/json' } });
    expect(notUtf8.status).toBe(400);
    expect(notUtf8.body).toEqual(broken.body);
    const empty = await t.api('POST', '/mcp', { body: [], headers: HEADERS });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a batch needs at least one message.' } });
  });

  it('is an invalid request (-32600) when it is JSON but no JSON-RPC message MCP takes (a null id, another version, no method)', async () => {
    const cases: [unknown, string][] = [
      [{ jsonrpc: '2.0', id: null, method: 'tools/list' }, 'Invalid Request: id must be a string or an integer, never null.'],
      [{ jsonrpc: '1.0', id: 1, method: 'tools/list' }, 'Invalid Request: jsonrpc must be "2.0".'],
      [{ jsonrpc: '2.0', id: 1 }, 'Invalid Request: a message has a method (a request or a notification), or a result or an error (a response).'],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] }, 'Invalid Request: params must be an object.'],
      ['tools/list', 'Invalid Request: a message is a JSON object.'],
    ];
    for (const [message, text] of cases) {
      const res = await t.api('POST', '/mcp', { body: message, headers: HEADERS });
      expect(res.status, JSON.stringify(message)).toBe(400);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: text } });
    }
    const stdio = await overStdio([JSON.stringify(cases[0]![0]), JSON.stringify(call(8, { name: 'getMe', arguments: {} }))]);
    expect(stdio).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: cases[0]![1] } },
      expect.objectContaining({ id: 8, result: expect.objectContaining({ structuredContent: expect.objectContaining({ agent: false }) }) }),
    ]);
  }, 30_000);

  it('is invalid params (-32602) for an initialize without its params, not an internal error', async () => {
    for (const params of [undefined, {}, { protocolVersion: '2025-06-18', capabilities: {} }]) {
      const res = await t.api('POST', '/mcp', { body: { jsonrpc: '2.0', id: 9, method: 'initialize', params }, headers: HEADERS });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: expect.stringMatching(/^initialize takes params \{"protocolVersion"/) } });
    }
  });

  it('is answered over stdio too (a line that is not JSON, a batch, a bare initialize), and the calls after it still are', async () => {
    const bareInitialize = JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'initialize' });
    const answers = await overStdio(['not json at all', JSON.stringify([call(7, { name: 'getMe', arguments: {} })]), bareInitialize, JSON.stringify(call(8, { name: 'getMe', arguments: {} }))]);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a line that is not valid JSON.' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: tack mcp reads one message per line, not batches.' } },
      { jsonrpc: '2.0', id: 6, error: { code: -32602, message: expect.stringMatching(/^initialize takes params/) } },
      expect.objectContaining({ id: 8, result: expect.objectContaining({ structuredContent: expect.objectContaining({ agent: false }) }) }),
    ]);
  }, 30_000);
});

describe.each([
  ['in memory', {} as Record<string, string>],
  ['through Redis', { REDIS_URL }],
])('a batch over Streamable HTTP, rate limits %s', (_where, env) => {
  it('counts each of its calls against the rate limit, and past the limit does none of them', async () => {
    const s = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT), ...env });
    try {
      if (env.REDIS_URL) await waitFor('/readyz ready with Redis', async () => (await s.api('GET', '/readyz')).body?.status === 'ready');
      const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => call(from + i, { name: 'createTodo', arguments: { title: `batched ${from + i}` } }));
      const first = await s.api('POST', '/mcp', { body: batch(0, 10), headers: HEADERS });
      expect(first.status).toBe(200);
      expect(first.body).toHaveLength(10);
      expect(Number(first.headers.get('ratelimit-remaining'))).toBe(LIMIT - 10);

      const over = await s.api('POST', '/mcp', { body: batch(100, LIMIT), headers: HEADERS });
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ code: 'rate_limited' });
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      // The limit is spent (a list would be refused too): count in the database.
      const rows = await s.database!.query("select count(*)::int as n from todos where title like 'batched %'");
      expect(rows[0].n).toBe(10);
    } finally {
      await s.close();
    }
  });
});

describe('the Origin header', () => {
  it('refuses a page of another origin with 403 before reading the body; tack\'s own origin and no Origin are served', async () => {
    const make = (title: string) => call(1, { name: 'createTodo', arguments: { title } });
    const foreign = await t.api('POST', '/mcp', { body: make('from evil'), headers: { ...HEADERS, origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: 'forbidden_origin', http_status: 403 });
    const own = await t.api('POST', '/mcp', { body: make('from tack'), headers: { ...HEADERS, origin: new URL(t.url).origin } });
    expect(own.status).toBe(200);
    const none = await t.api('POST', '/mcp', { body: make('from a client'), headers: HEADERS });
    expect(none.status).toBe(200);
    const titles = await todoTitles();
    expect(titles).toEqual(expect.arrayContaining(['from tack', 'from a client']));
    expect(titles).not.toContain('from evil');
  });
});
