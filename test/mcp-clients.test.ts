import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../src/operations/index.js';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { memberWithToken, token } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { runTack, TACK_BIN } from './helpers/tack.js';
import { connectMcp } from './helpers/mcp-http.js';

/**
 * The MCP server an agent can trust with less: tools/list shows what the caller can use (a
 * read-only token, the read tools), `tack mcp` offers fewer on request (toolsets, read-only),
 * answers initialize at once and a rate limit on the call that met it, tells every problem
 * of a call at once, and writes its schemas in JSON Schema 2020-12 with formats and without
 * machine bounds.
 */

let t: TestServer;
let home: string;
let readOnly: string;
let viewerWriter: string;
const clients: Client[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  t = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'tack-mcp-clients-'));
  readOnly = (await token(t, { name: 'reader', scopes: ['read'] })).token;
  // A viewer's token with the write scope still cannot write: the role decides too.
  viewerWriter = (await memberWithToken(t, { name: 'Viewer', role: 'viewer' }, { name: 'viewer', scopes: ['read', 'write'] })).token;
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function httpClient(token: string): Promise<Client> {
  const client = await connectMcp(t.url, token);
  clients.push(client);
  return client;
}

async function stdioClient(token: string, env: Record<string, string> = {}, url = t.url): Promise<Client> {
  const client = new Client({ name: 'tack-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [TACK_BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, TACK_URL: url, TACK_TOKEN: token, ...env },
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

const transports = [
  ['Streamable HTTP', (token: string) => httpClient(token)],
  ['stdio', (token: string) => stdioClient(token)],
] as const;

const names = (tools: Tool[]) => tools.map((tool) => tool.name).sort();
// What a read-only token or a viewer can call: the reads, and ending its own things
// (revokeToken, deleteSession name no scope: anyone may end their own, contract §9).
const readNames = operations
  .filter((op) => (op.readOnly && op.scope === 'read') || op.scope === null)
  .map((op) => op.name)
  .sort();

describe.each(transports)('tools/list over %s', (_name, connect) => {
  it('shows a read-only token the read tools only, and a full token every tool', async () => {
    const reader = await connect(readOnly);
    const listed = (await reader.listTools()).tools;
    expect(names(listed)).toEqual(readNames);
    expect(listed.filter((tool) => tool.annotations?.readOnlyHint !== true).map((tool) => tool.name).sort()).toEqual(['deleteSession', 'revokeToken']);
    expect(names((await (await connect(t.token)).listTools()).tools)).toEqual(operations.map((op) => op.name).sort());
    // A tool it is not shown is still answered for, by the operation: 403, not "no such tool".
    const refused = (await reader.callTool({ name: 'createTodo', arguments: { title: 'sneaky' } })) as CallToolResult;
    expect(refused._meta?.['tack/error']).toMatchObject({ code: 'insufficient_scope', http_status: 403 });
  });

  it('shows a viewer, whatever its token\'s scopes, no write tool', async () => {
    const listed = (await (await connect(viewerWriter)).listTools()).tools;
    expect(names(listed)).toEqual(readNames);
  });

  it('tells every problem of a call at once: an unknown argument does not hide a missing one', async () => {
    const client = await connect(t.token);
    const errors = async (tool: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      return (result._meta?.['tack/error'] as { errors: { field: string; code: string }[] }).errors.map((e) => [e.field, e.code]);
    };
    expect(await errors('createToken', { scope: 'write' })).toEqual([
      ['scope', 'unknown_field'],
      ['name', 'required'],
    ]);
    expect(await errors('createTodo', { titel: 'x', priority: 'soon', due_on: 'someday' })).toEqual([
      ['titel', 'unknown_field'],
      ['priority', 'invalid_value'],
      ['due_on', 'invalid'],
      ['title', 'required'],
    ]);
    // A value of the wrong JSON type (the URL would hide it) and a value out of range, together.
    expect(await errors('listTodos', { done: 'true', limit: 500 })).toEqual([
      ['done', 'invalid_type'],
      ['limit', 'too_big'],
    ]);
    expect(await errors('getCard', { ref: 'ENG-1' })).toEqual([
      ['ref', 'unknown_field'],
      ['id', 'required'],
    ]);
    const result = (await client.callTool({ name: 'createToken', arguments: { scope: 'write' } })) as CallToolResult;
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^validation_failed: 2 fields are not valid: scope, name\.\n- scope is not an argument of createToken; did you mean scopes\?/) });
    // Nothing was made by any of them.
    expect((await t.api('GET', '/v1/todos?limit=100')).body.data).toEqual([]);
  });
});

describe('tool schemas', () => {
  let tools: Tool[];
  beforeAll(async () => {
    tools = (await (await httpClient(t.token)).listTools()).tools;
  });

  it('are JSON Schema 2020-12 (the current revision\'s dialect, so no $schema of another draft) without ±2^53 bounds', () => {
    const text = JSON.stringify(tools);
    expect(text).not.toContain('draft-07');
    expect(text).not.toContain('"$schema"');
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const listTokens = tools.find((tool) => tool.name === 'listTokens')!;
    expect((listTokens.inputSchema.properties as Record<string, unknown>).limit).toEqual({ description: 'Page size, default 25, at most 100', type: 'integer', minimum: 1, maximum: 100 });
  });

  it('say format: date and date-time as the OpenAPI document does, and type every branch of a due date', () => {
    const todo = tools.find((tool) => tool.name === 'createTodo')!;
    const output = todo.outputSchema!.properties as Record<string, unknown>;
    expect(output.created_at).toEqual({ type: 'string', format: 'date-time' });
    expect(output.due_on).toEqual({ anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] });
    expect((todo.inputSchema.properties as Record<string, { anyOf?: unknown }>).due_on!.anyOf).toEqual([
      { type: 'string', format: 'date' },
      { type: 'string', enum: ['today', 'tomorrow'] },
    ]);
    const milestone = tools.find((tool) => tool.name === 'createMilestone')!;
    expect((milestone.inputSchema.properties as Record<string, unknown>).ends_on).toEqual({ type: 'string', format: 'date' });
  });
});

describe('tack mcp narrowed by TACK_MCP_TOOLSETS and TACK_MCP_READ_ONLY', () => {
  const groupOf = new Map(operations.map((op) => [op.name, op.group]));

  it('offers the toolsets named, getMe always, and says why another tool is not offered', async () => {
    const client = await stdioClient(t.token, { TACK_MCP_TOOLSETS: 'cards, todos' });
    const listed = names((await client.listTools()).tools);
    expect(listed).toEqual(operations.filter((op) => ['cards', 'todos'].includes(op.group) || op.name === 'getMe').map((op) => op.name).sort());
    expect(listed.every((name) => name === 'getMe' || ['cards', 'todos'].includes(groupOf.get(name)!))).toBe(true);
    await expect(client.callTool({ name: 'listSnippets', arguments: {} })).rejects.toThrow(/listSnippets is not offered: its toolset snippets is not in TACK_MCP_TOOLSETS/);
  });

  it('offers the read tools only with TACK_MCP_READ_ONLY=1, whatever the token may do', async () => {
    const client = await stdioClient(t.token, { TACK_MCP_READ_ONLY: '1', TACK_MCP_TOOLSETS: 'todos' });
    expect(names((await client.listTools()).tools)).toEqual(['getMe', 'listTodos']);
    await expect(client.callTool({ name: 'createTodo', arguments: { title: 'not here' } })).rejects.toThrow(/createTodo is not offered: this server is read-only/);
    expect((await t.api('GET', '/v1/todos?limit=100')).body.data).toEqual([]);
  });

  it('refuses a toolset it does not know, or a read-only setting it cannot read, before starting (exit 2)', async () => {
    const env = { HOME: home, XDG_CONFIG_HOME: home, TACK_URL: t.url, TACK_TOKEN: t.token };
    const toolset = await runTack(['mcp'], { env: { ...env, TACK_MCP_TOOLSETS: 'cards,wiki' } });
    expect(toolset.code).toBe(2);
    expect(toolset.stderr).toContain('TACK_MCP_TOOLSETS names no toolset wiki; the toolsets are me, members');
    const readOnlyValue = await runTack(['mcp'], { env: { ...env, TACK_MCP_READ_ONLY: 'yes please' } });
    expect(readOnlyValue.code).toBe(2);
    expect(readOnlyValue.stderr).toContain('TACK_MCP_READ_ONLY');
  });
});

interface Gate {
  url: string;
  /** Answers /v1/me once released. */
  release(): void;
  close(): Promise<void>;
}

/** In front of the test server: holds /v1/me until released, and answers every other write 429 (Retry-After: 60). */
async function gate(): Promise<Gate> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'GET') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' });
      res.end(JSON.stringify({ code: 'rate_limited', http_status: 429, user_message: 'Too many requests; retry in 60 s.', request_id: 'req_0123456789abcdef01234567' }));
      return;
    }
    if (req.url === '/v1/me') await released;
    const upstream = await fetch(`${t.url}${req.url}`, { headers: { authorization: req.headers.authorization ?? '' } });
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('tack mcp and a slow or busy server', () => {
  it('answers initialize at once, lists the tools when it knows who the token is, and answers a 429 on the call that met it', async () => {
    const g = await gate();
    try {
      const started = Date.now();
      // connect() is initialize and its answer: /v1/me is still held.
      const client = await stdioClient(readOnly, {}, g.url);
      expect(Date.now() - started).toBeLessThan(10_000);
      const listing = client.listTools();
      g.release();
      expect(names((await listing).tools)).toEqual(readNames);
      const before = Date.now();
      const limited = (await client.callTool({ name: 'createTodo', arguments: { title: 'later' } })) as CallToolResult;
      // Not a minute of silence: the agent hears it now, with the wait.
      expect(Date.now() - before).toBeLessThan(10_000);
      expect(limited.isError).toBe(true);
      expect(limited._meta?.['tack/error']).toMatchObject({ code: 'rate_limited', http_status: 429 });
      expect(limited.content[0]).toMatchObject({ text: expect.stringContaining('retry in 60 s') });
    } finally {
      await g.close();
    }
  });
});
