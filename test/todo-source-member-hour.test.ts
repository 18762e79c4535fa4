import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { connectMcp } from './helpers/mcp-http.js';

/**
 * The two fields this step adds, on every face the operation table generates: a todo's
 * `source_url` (http or https only) and a member's own `reminder_hour` (0 to 23, null for
 * REMINDER_HOUR), over /v1, in the OpenAPI document and as MCP tool arguments.
 */

let t: TestServer;
let client: Client;
beforeAll(async () => {
  t = await startTestServer();
  client = await connectMcp(t.url, t.token);
});
afterAll(async () => {
  await client?.close().catch(() => {});
  await t?.close();
});

describe('todo source_url', () => {
  it('is kept, changed and cleared over /v1, and only an http(s) link is taken', async () => {
    const made = await t.api('POST', '/v1/todos', { body: { title: 'From a thread', source_url: 'https://example.slack.com/archives/C1/p1712000000000100' } });
    expect(made.status).toBe(201);
    expect(made.body.source_url).toBe('https://example.slack.com/archives/C1/p1712000000000100');
    for (const bad of ['javascript:alert(1)', 'not a url', `https://x.example/${'a'.repeat(2000)}`]) {
      const refused = await t.api('POST', '/v1/todos', { body: { title: 'Bad link', source_url: bad } });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0].field).toBe('source_url');
    }
    const plain = await t.api('POST', '/v1/todos', { body: { title: 'No link' } });
    expect(plain.body).not.toHaveProperty('source_url');
    const cleared = await t.api('PATCH', `/v1/todos/${made.body.id}`, { body: { source_url: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('source_url');
  });

  it('is in the OpenAPI document and the MCP tools', async () => {
    const doc = JSON.stringify((await t.api('GET', '/v1/openapi.json')).body);
    expect(doc).toContain('source_url');
    expect(doc).toContain('reminder_hour');
    const tools = (await client.listTools()).tools;
    expect(Object.keys(tools.find((x) => x.name === 'createTodo')!.inputSchema.properties ?? {})).toContain('source_url');
    expect(Object.keys(tools.find((x) => x.name === 'updateMember')!.inputSchema.properties ?? {})).toContain('reminder_hour');
  });
});

describe('member reminder_hour', () => {
  it('is null by default, set by the member themself, refused outside 0 to 23, cleared with null', async () => {
    const me = (await t.api('GET', '/v1/me')).body.member;
    expect(me.reminder_hour).toBeNull();
    expect((await t.api('PATCH', `/v1/members/${me.id}`, { body: { reminder_hour: 0 } })).body.reminder_hour).toBe(0);
    for (const bad of [24, -1, 7.5, '8']) {
      const refused = await t.api('PATCH', `/v1/members/${me.id}`, { body: { reminder_hour: bad } });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0].field).toBe('reminder_hour');
    }
    const mcp = await client.callTool({ name: 'updateMember', arguments: { id: me.id, reminder_hour: 18 } });
    expect(mcp.isError).toBeFalsy();
    expect((await t.api('GET', '/v1/me')).body.member.reminder_hour).toBe(18);
    expect((await t.api('PATCH', `/v1/members/${me.id}`, { body: { reminder_hour: null } })).body.reminder_hour).toBeNull();
    const made = await t.api('POST', '/v1/members', { body: { name: 'Early', reminder_hour: 6 } });
    expect(made.body.reminder_hour).toBe(6);
  });
});
