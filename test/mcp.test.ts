import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../src/operations/index.js';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { recordingProxy, type RecordingProxy } from './helpers/recording-proxy.js';
import { runTack, TACK_BIN } from './helpers/tack.js';
import { connectMcp } from './helpers/mcp-http.js';

let t: TestServer;
let home: string;
let readOnly: string;
let agent: string;
const clients: Client[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  t = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'tack-mcp-'));
  readOnly = (await t.api('POST', '/v1/tokens', { body: { name: 'reader', scopes: ['read'] } })).body.token;
  agent = (await t.api('POST', '/v1/tokens', { body: { name: 'bot', scopes: ['read', 'write'], agent: true } })).body.token;
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

/** `tack mcp` spawned from the built binary, as an MCP client configuration would run it. */
async function stdioClient(token: string, url = t.url): Promise<Client> {
  const client = new Client({ name: 'tack-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [TACK_BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, TACK_URL: url, TACK_TOKEN: token },
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

async function tokenNames(): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await t.api('GET', `/v1/tokens?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    names.push(...res.body.data.map((tk: { name: string }) => tk.name));
    cursor = res.body.next_cursor;
  } while (cursor);
  return names;
}

const transports = [
  ['Streamable HTTP', httpClient],
  ['stdio', stdioClient],
] as const;

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}

/** Error text without its request id, which differs per request. */
function errorText(result: CallToolResult): string {
  return text(result).replace(/\nrequest_id: \S+/, '');
}

let httpTools: Tool[];

describe('tools', () => {
  it('lists one tool per operation, named by operationId, with its schemas and annotations', async () => {
    const client = await httpClient(t.token);
    httpTools = (await client.listTools()).tools;
    expect(httpTools.map((tool) => tool.name).sort()).toEqual(operations.map((op) => op.name).sort());
    for (const op of operations) {
      const tool = httpTools.find((x) => x.name === op.name)!;
      expect(tool.annotations, op.name).toMatchObject({
        readOnlyHint: op.readOnly,
        destructiveHint: op.destructive,
        idempotentHint: op.idempotent,
        openWorldHint: op.openWorld,
      });
      const argumentNames = [...Object.keys(op.input.shape), ...(op.readOnly ? [] : ['idempotency_key'])];
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), op.name).toEqual(argumentNames.sort());
      expect(tool.inputSchema.additionalProperties, op.name).toBe(false);
      expect(tool.outputSchema !== undefined).toBe(op.output !== undefined);
      expect(tool.description).toContain(op.path);
    }
    const getMe = httpTools.find((x) => x.name === 'getMe')!;
    expect(getMe.annotations?.readOnlyHint).toBe(true);
    expect(Object.keys(getMe.outputSchema?.properties ?? {})).toEqual(['member', 'org', 'role', 'scopes', 'agent', 'today', 'time_zone', 'abilities']);
    const revoke = httpTools.find((x) => x.name === 'revokeToken')!;
    expect(revoke.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    const create = httpTools.find((x) => x.name === 'createToken')!;
    expect(create.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(create.inputSchema.required).toEqual(['name']);
    // Overwriting (any PATCH) or killing a public link is destructive; only runJob reaches beyond tack (Slack).
    for (const name of ['updateMember', 'moveCard', 'updateSnippet', 'rotateSnippetLink']) expect(httpTools.find((x) => x.name === name)!.annotations?.destructiveHint, name).toBe(true);
    for (const name of ['createTodo', 'completeTodo', 'addCriterion']) expect(httpTools.find((x) => x.name === name)!.annotations?.destructiveHint, name).toBe(false);
    expect(httpTools.filter((x) => x.annotations?.openWorldHint).map((x) => x.name)).toEqual(['runJob']);
  });

  it('spells every schema with one type per node, as single-type dialects (and the Inspector\'s --strict) want', async () => {
    const unions: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${path}/${i}`));
      else if (node !== null && typeof node === 'object') {
        if (Array.isArray((node as { type?: unknown }).type)) unions.push(path);
        for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
      }
    };
    for (const tool of httpTools) walk({ inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }, tool.name);
    expect(unions).toEqual([]);
    // A nullable field is a choice of two types, its description outside them.
    const getMe = httpTools.find((x) => x.name === 'getMe')!;
    const member = (getMe.outputSchema!.properties as Record<string, { properties: Record<string, unknown> }>).member!;
    expect(member.properties.email).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it('lists exactly the same tools over stdio (`tack mcp`)', async () => {
    const client = await stdioClient(t.token);
    expect((await client.listTools()).tools).toEqual(httpTools);
  });
});

describe.each(transports)('over %s', (_name, connect) => {
  it('answers getMe with the /v1 body as structuredContent and as text', async () => {
    const client = await connect(t.token);
    const result = (await client.callTool({ name: 'getMe', arguments: {} })) as CallToolResult;
    const api = await t.api('GET', '/v1/me');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(api.body);
    expect(JSON.parse(text(result))).toEqual(api.body);
  });

  it('creates a token with createToken, and pages with listTokens', async () => {
    const client = await connect(t.token);
    const name = `mcp ${_name}`;
    const result = (await client.callTool({ name: 'createToken', arguments: { name, scopes: ['read'] } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const created = result.structuredContent as { id: string; token: string; scopes: string[] };
    expect(created.token).toMatch(/^tack_live_/);
    expect(created.scopes).toEqual(['read']);
    expect((await t.api('GET', '/v1/me', { token: created.token })).status).toBe(200);

    const first = (await client.callTool({ name: 'listTokens', arguments: { limit: 1 } })) as CallToolResult;
    const page = first.structuredContent as { data: { id: string }[]; next_cursor?: string };
    expect(page.data).toHaveLength(1);
    expect(page.data[0]!.id).toBe(created.id);
    expect(page.next_cursor).toBeTruthy();
    const api = await t.api('GET', `/v1/tokens?limit=1&cursor=${encodeURIComponent(page.next_cursor!)}`);
    const second = (await client.callTool({ name: 'listTokens', arguments: { limit: 1, cursor: page.next_cursor } })) as CallToolResult;
    expect(second.structuredContent).toEqual(api.body);
  });

  it('answers domain errors as isError results with the envelope code and message', async () => {
    const client = await connect(t.token);
    const missing = (await client.callTool({ name: 'revokeToken', arguments: { id: 'tok_missing' } })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toBeUndefined();
    expect(text(missing)).toMatch(/^token_not_found: No token with the identifier "tok_missing"\.\nrequest_id: req_[0-9a-f]+$/);
  });

  it('validates input exactly as /v1 does', async () => {
    const client = await connect(t.token);
    const args = { name: ' ', scopes: ['root'] };
    const result = (await client.callTool({ name: 'createToken', arguments: args })) as CallToolResult;
    const api = await t.api('POST', '/v1/tokens', { body: args });
    expect(api.status).toBe(422);
    expect(result.isError).toBe(true);
    expect(result._meta?.['tack/error']).toMatchObject({ code: 'validation_failed', http_status: 422, errors: api.body.errors });
    expect(errorText(result)).toBe(
      [`validation_failed: ${api.body.user_message}`, ...api.body.errors.map((e: { code: string; message: string }) => `- ${e.message} (${e.code})`)].join('\n'),
    );
  });

  it('refuses a write tool to a read-only token with insufficient_scope', async () => {
    const client = await connect(readOnly);
    const result = (await client.callTool({ name: 'createToken', arguments: { name: `sneaky ${_name}` } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^insufficient_scope: /);
    const tokens = await t.api('GET', '/v1/tokens?limit=100');
    expect(tokens.body.data.some((tk: { name: string }) => tk.name === `sneaky ${_name}`)).toBe(false);
    const read = (await client.callTool({ name: 'getMe', arguments: {} })) as CallToolResult;
    expect(read.isError).toBeFalsy();
  });

  it('keeps an agent token an agent', async () => {
    const client = await connect(agent);
    const me = (await client.callTool({ name: 'getMe', arguments: {} })) as CallToolResult;
    expect((me.structuredContent as { agent: boolean }).agent).toBe(true);
    const made = (await client.callTool({ name: 'createToken', arguments: { name: `child ${_name}`, scopes: ['read'] } })) as CallToolResult;
    expect((made.structuredContent as { agent: boolean }).agent).toBe(true);
  });

  it('refuses an agent a gated move to done, and lets a human make it', async () => {
    const slug = `gate-${_name.replace(/\W+/g, '-').toLowerCase()}`.slice(0, 40);
    const board = await t.api('POST', '/v1/boards', { body: { name: `Gate ${_name}`, slug, ref_prefix: _name === 'stdio' ? 'GS' : 'GH', gated: true } });
    expect(board.status).toBe(201);
    const card = await t.api('POST', '/v1/cards', { body: { board: board.body.id, title: 'Ship it' } });
    expect(card.status).toBe(201);
    const bot = await connect(agent);
    const refused = (await bot.callTool({ name: 'moveCard', arguments: { id: card.body.id, workflow_status: 'done', title: 'renamed by bot' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('gated_move_requires_human');
    const unchanged = await t.api('GET', `/v1/cards/${card.body.id}`);
    expect(unchanged.body).toMatchObject({ workflow_status: 'backlog', title: 'Ship it' });
    const human = await connect(t.token);
    const moved = (await human.callTool({ name: 'moveCard', arguments: { id: card.body.id, workflow_status: 'done' } })) as CallToolResult;
    expect(moved.isError).toBeFalsy();
    expect((moved.structuredContent as { workflow_status: string }).workflow_status).toBe('done');
  });
});

describe.each(transports)('arguments over %s', (_name, connect) => {
  it('refuses an argument the tool does not take with unknown_field, naming those it does, and does nothing', async () => {
    const client = await connect(t.token);
    const name = `unknown argument ${_name}`;
    const result = (await client.callTool({ name: 'createToken', arguments: { name, scopes: ['read'], scope: 'write' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result._meta?.['tack/error']).toMatchObject({
      code: 'validation_failed',
      http_status: 422,
      errors: [{ field: 'scope', code: 'unknown_field', message: 'scope is not an argument of createToken; did you mean scopes? It takes name, scopes, agent, member_id, expires_at, idempotency_key.' }],
      // Every error carries one, as the Error schema says, also when the tool refused it before /v1.
      request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/),
    });
    expect(await tokenNames()).not.toContain(name);

    // An agent that guesses `status` for `workflow_status` is told so, not "success".
    const slug = `args-${_name.replace(/\W+/g, '-').toLowerCase()}`;
    const board = await t.api('POST', '/v1/boards', { body: { name: `Args ${_name}`, slug, ref_prefix: _name === 'stdio' ? 'AS' : 'AH' } });
    const card = await t.api('POST', '/v1/cards', { body: { board: board.body.id, title: 'Guess' } });
    const guessed = (await client.callTool({ name: 'moveCard', arguments: { id: card.body.id, status: 'done' } })) as CallToolResult;
    expect(guessed.isError).toBe(true);
    expect(errorText(guessed)).toContain('status is not an argument of moveCard; did you mean workflow_status? It takes id, workflow_status');
    expect((await t.api('GET', `/v1/cards/${card.body.id}`)).body.workflow_status).toBe('backlog');

    const read = (await client.callTool({ name: 'getMe', arguments: { idempotency_key: 'k1' } })) as CallToolResult;
    expect(read._meta?.['tack/error']).toMatchObject({ errors: [{ field: 'idempotency_key', code: 'unknown_field' }] });
  });

  it('refuses an argument of another JSON type than its schema says, though /v1 would carry it as text in the URL', async () => {
    const client = await connect(t.token);
    const refused = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      return (result._meta?.['tack/error'] as { errors: unknown[] }).errors;
    };
    expect(await refused('listTokens', { limit: '10' })).toEqual([{ field: 'limit', code: 'invalid_type', message: 'limit must be a whole number, such as 25.' }]);
    expect(await refused('listTodos', { done: 'true', limit: 2.5 })).toEqual([
      { field: 'done', code: 'invalid_type', message: 'done must be true or false.' },
      { field: 'limit', code: 'invalid_type', message: 'limit must be a whole number, such as 25.' },
    ]);
    const name = `typed ${_name}`;
    const made = await t.api('POST', '/v1/tokens', { body: { name, scopes: ['read'] } });
    expect(await refused('revokeToken', { id: [made.body.id] })).toEqual([{ field: 'id', code: 'invalid_type', message: 'id must be text, not a list.' }]);
    expect(await refused('getSnippetVersion', { id: 123, n: '1' })).toEqual([
      { field: 'id', code: 'invalid_type', message: 'id must be text.' },
      { field: 'n', code: 'invalid_type', message: 'n must be a whole number, such as 25.' },
    ]);
    // Nothing was revoked; the same calls with their declared types work.
    expect((await t.api('GET', `/v1/tokens?limit=100`)).body.data.find((tk: { id: string }) => tk.id === made.body.id).revoked_at).toBeNull();
    const page = (await client.callTool({ name: 'listTokens', arguments: { limit: 1 } })) as CallToolResult;
    expect((page.structuredContent as { data: unknown[] }).data).toHaveLength(1);
    expect(((await client.callTool({ name: 'revokeToken', arguments: { id: made.body.id } })) as CallToolResult).isError).toBeFalsy();
  });

  it('applies a write once when it is retried with the same idempotency_key, and says the answer is a replay', async () => {
    const client = await connect(t.token);
    const args = { name: `retried ${_name}`, scopes: ['read'], idempotency_key: `mcp-${randomUUID()}` };
    const first = (await client.callTool({ name: 'createToken', arguments: args })) as CallToolResult;
    const retry = (await client.callTool({ name: 'createToken', arguments: args })) as CallToolResult;
    expect(first.isError).toBeFalsy();
    expect(retry.isError).toBeFalsy();
    expect(retry.structuredContent).toEqual(first.structuredContent);
    expect(first._meta?.['tack/idempotent-replayed']).toBeUndefined();
    expect(retry._meta?.['tack/idempotent-replayed']).toBe(true);
    expect((await tokenNames()).filter((n) => n === args.name)).toHaveLength(1);

    // The key means what the Idempotency-Key header means: another request under it is refused.
    const other = (await client.callTool({ name: 'createToken', arguments: { ...args, name: `other ${_name}` } })) as CallToolResult;
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/^idempotency_key_reused: /);
    expect(await tokenNames()).not.toContain(`other ${_name}`);

    // Without a key, two calls are two writes.
    const plain = { name: `unkeyed ${_name}`, scopes: ['read'] };
    await client.callTool({ name: 'createToken', arguments: plain });
    await client.callTool({ name: 'createToken', arguments: plain });
    expect((await tokenNames()).filter((n) => n === plain.name)).toHaveLength(2);

    const bad = (await client.callTool({ name: 'createToken', arguments: { ...plain, idempotency_key: 'has space' } })) as CallToolResult;
    expect(bad._meta?.['tack/error']).toMatchObject({ errors: [{ field: 'idempotency_key', code: 'invalid' }] });
    expect((await tokenNames()).filter((n) => n === plain.name)).toHaveLength(2);
  });
});

describe('tack mcp (stdio)', () => {
  let proxy: RecordingProxy | undefined;
  afterAll(async () => proxy?.close());

  it('acts with TACK_TOKEN only: with a stored login and no TACK_TOKEN it exits 2 naming TACK_TOKEN and calls nothing', async () => {
    proxy = await recordingProxy(t.url);
    const config = mkdtempSync(join(tmpdir(), 'tack-mcp-login-'));
    try {
      const env = { HOME: config, XDG_CONFIG_HOME: config, TACK_URL: proxy.url };
      const login = await runTack(['login'], { env, input: `${t.token}\n` });
      expect(login.code, login.stderr).toBe(0);
      const before = proxy.requests.length;
      expect(before).toBeGreaterThan(0);

      const mcp = await runTack(['mcp'], { env });
      expect(mcp.code).toBe(2);
      expect(mcp.stdout).toBe('');
      expect(mcp.stderr).toContain('TACK_TOKEN');
      expect(mcp.stderr).toContain('tack login');
      expect(proxy.requests.length).toBe(before);
      // The same with TACK_URL unset: the stored login's server is not called either.
      const bare = await runTack(['mcp'], { env: { HOME: config, XDG_CONFIG_HOME: config } });
      expect(bare.code).toBe(2);
      expect(proxy.requests.length).toBe(before);
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  it('says on stderr which member it acts as and whether the token is an agent token', async () => {
    const stderrOf = async (token: string) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [TACK_BIN, 'mcp'],
        env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, TACK_URL: t.url, TACK_TOKEN: token },
        stderr: 'pipe',
      });
      let err = '';
      transport.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
      const client = new Client({ name: 'tack-test', version: '1.0.0' });
      await client.connect(transport);
      await client.listTools();
      await client.close();
      return err;
    };
    const me = (await t.api('GET', '/v1/me')).body;
    const human = await stderrOf(t.token);
    expect(human).toContain(`acting as ${me.member.name} (${me.member.id}, owner)`);
    expect(human).toContain('NOT an agent token');
    const bot = await stderrOf(agent);
    expect(bot).toContain(`acting as ${me.member.name}`);
    expect(bot).toMatch(/with an agent token/);
  });

  it('answers every call piped in before stdin closed, then exits 0', async () => {
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getMe', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'listBoards', arguments: {} } },
    ];
    const res = await runTack(['mcp'], { env: { HOME: home, XDG_CONFIG_HOME: home, TACK_URL: t.url, TACK_TOKEN: agent }, input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n' });
    expect(res.code, res.stderr).toBe(0);
    const answers = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result?: { isError?: boolean } });
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(answers.filter((a) => a.result?.isError)).toEqual([]);
  });

  it('exits 4 with the reason when the server refuses TACK_TOKEN', async () => {
    const res = await runTack(['mcp'], { env: { HOME: home, XDG_CONFIG_HOME: home, TACK_URL: t.url, TACK_TOKEN: 'tack_live_not_a_real_token' } });
    expect(res.code).toBe(4);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^tack: .*unauthorized/);
  });

  it('sends one Idempotency-Key per tool call and reuses it when it retries a lost answer', async () => {
    proxy ??= await recordingProxy(t.url);
    const client = await stdioClient(t.token, proxy.url);
    // The server applies the first POST, then the connection drops before the answer arrives.
    proxy.dropNextAnswer((r) => r.method === 'POST' && r.url === '/v1/tokens');
    const name = `lost answer ${randomUUID()}`;
    const result = (await client.callTool({ name: 'createToken', arguments: { name, scopes: ['read'] } })) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    expect(result._meta?.['tack/idempotent-replayed']).toBe(true);
    const posts = proxy.requests.filter((r) => r.method === 'POST' && r.url === '/v1/tokens');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey);
    expect((await tokenNames()).filter((n) => n === name)).toHaveLength(1);

    // The next call gets a key of its own; a caller's idempotency_key is sent as the header.
    await client.callTool({ name: 'createToken', arguments: { name: `${name} 2`, scopes: ['read'], idempotency_key: 'caller-key-1' } });
    const later = proxy.requests.filter((r) => r.method === 'POST' && r.url === '/v1/tokens').slice(2);
    expect(later.map((r) => r.idempotencyKey)).toEqual(['caller-key-1']);
  });
});

describe.each(transports)('editing over %s', (_name, connect) => {
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, `${name}: ${text(result)}`).toBeFalsy();
    return result.structuredContent as any;
  };
  const tag = _name === 'stdio' ? 'S' : 'H';

  it('renames a milestone: the path key arrives as `milestone`, the new ref as `ref`; then deletes it', async () => {
    const client = await connect(t.token);
    await t.api('POST', '/v1/milestones', { body: { ref: `ED${tag}1`, name: 'Old name' } });
    const renamed = await call(client, 'updateMilestone', { milestone: `ed${tag}1`, ref: `ED${tag}2`, name: 'New name', ends_on: null });
    expect(renamed).toMatchObject({ ref: `ED${tag}2`, name: 'New name', ends_on: null });
    expect(await call(client, 'getMilestone', { ref: `ED${tag}2` })).toEqual(renamed);
    const fieldsOf = async (args: Record<string, unknown>) => {
      const bad = (await client.callTool({ name: 'updateMilestone', arguments: args })) as CallToolResult;
      expect(bad.isError).toBe(true);
      return (bad._meta?.['tack/error'] as { errors: { field: string }[] }).errors.map((e) => e.field);
    };
    expect(await fieldsOf({ milestone: '', name: 'x' })).toEqual(['milestone']);
    expect(await fieldsOf({ milestone: `ED${tag}2`, ref: 'no spaces allowed' })).toEqual(['ref']);
    const gone = (await client.callTool({ name: 'deleteMilestone', arguments: { ref: `ED${tag}2` } })) as CallToolResult;
    expect(gone.isError).toBeFalsy();
    expect((await t.api('GET', `/v1/milestones/ED${tag}2`)).status).toBe(404);
  });

  it('shows an agent the gate with listCardMoves, reorders and deletes criteria, corrects and deletes a todo', async () => {
    const board = await t.api('POST', '/v1/boards', { body: { name: `Edit ${_name}`, slug: `edit-${tag.toLowerCase()}`, ref_prefix: `ED${tag}`, gated: true } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: board.body.id, title: 'Edit me', criteria: ['a', 'b', 'c'] } })).body;
    const moves = await call(await connect(agent), 'listCardMoves', { id: card.ref });
    expect(moves.data.filter((m: { allowed: boolean }) => !m.allowed)).toEqual([{ workflow_status: 'done', allowed: false, code: 'gated_move_requires_human' }]);

    const client = await connect(t.token);
    const listed = await call(client, 'listCriteria', { id: card.ref });
    const moved = await call(client, 'updateCriterion', { id: card.ref, criterion_id: listed.data[2].id, position: 0 });
    expect(moved).toMatchObject({ title: 'c', position: 0 });
    const deleted = (await client.callTool({ name: 'deleteCriterion', arguments: { id: card.id, criterion_id: listed.data[0].id } })) as CallToolResult;
    expect(deleted.isError).toBeFalsy();
    expect((await call(client, 'listCriteria', { id: card.id })).data.map((c: { title: string }) => c.title)).toEqual(['c', 'b']);

    const todo = (await t.api('POST', '/v1/todos', { body: { title: 'Typo', due_on: '2026-01-01' } })).body;
    expect(await call(client, 'updateTodo', { id: todo.id, title: 'Fixed', due_on: null })).toMatchObject({ title: 'Fixed', due_on: null });
    expect(((await client.callTool({ name: 'deleteTodo', arguments: { id: todo.id } })) as CallToolResult).isError).toBeFalsy();
    const again = (await client.callTool({ name: 'deleteTodo', arguments: { id: todo.id } })) as CallToolResult;
    expect(text(again)).toMatch(/^todo_not_found: /);
  });
});

describe('the /mcp endpoint', () => {
  it('answers 401 in the envelope without a valid token', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    // RFC 6750: no token, no error code; a token sent and refused is an invalid_token.
    for (const [token, challenge] of [
      [null, 'Bearer realm="tack"'],
      ['tack_live_invalid', 'Bearer realm="tack", error="invalid_token"'],
    ] as const) {
      const res = await t.api('POST', '/mcp', { token, body: init, headers: { accept: 'application/json, text/event-stream' } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'unauthorized', http_status: 401 });
      expect(res.headers.get('www-authenticate')).toBe(challenge);
    }
    await expect(httpClient('tack_live_invalid')).rejects.toThrow();
  });

  it('is stateless: POST only, GET and DELETE are 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await t.api(method, '/mcp');
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.body.code).toBe('method_not_allowed');
    }
  });

  it('counts against the token rate limit like /v1', async () => {
    const res = await t.api('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBeTruthy();
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.body.result.tools.map((tool: Tool) => tool.name)).toContain('getMe');
  });
});
