import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { connectMcp } from './helpers/mcp-http.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { runTack, TACK_BIN } from './helpers/tack.js';

/**
 * One answer everywhere: the same three questions (a milestone's status, my todos due this
 * week, a snippet) asked through /v1, `tack … --json`, MCP over stdio and over HTTP, and Slack.
 */
const SECRET = 'one-answer-secret';
const SLACK_USER = 'U0ONE';

let fake: FakeSlack;
let t: TestServer;
let home: string;
let slug: string;
const clients: Client[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl });
  home = mkdtempSync(join(tmpdir(), 'tack-one-'));
  const me = await t.api('GET', '/v1/me');
  await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: SLACK_USER } });

  expect((await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' } })).status).toBe(201);
  expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M3', name: 'Sprint 3', kind: 'sprint' } })).status).toBe(201);
  const done = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Shipped, criteria open', milestone: 'M3', criteria: ['a', 'b'] } });
  await t.api('PATCH', `/v1/cards/${done.body.id}`, { body: { workflow_status: 'done' } });
  const open = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'In progress, criteria done', milestone: 'M3', criteria: ['c', 'd'] } });
  await t.api('PATCH', `/v1/cards/${open.body.id}`, { body: { workflow_status: 'in_progress' } });
  for (const c of (await t.api('GET', `/v1/cards/${open.body.id}/criteria`)).body.data) {
    await t.api('PATCH', `/v1/cards/${open.body.id}/criteria/${c.id}`, { body: { done: true } });
  }
  const today = new Date().toISOString().slice(0, 10);
  for (const title of ['Write the release notes', 'Call the printer']) {
    expect((await t.api('POST', '/v1/todos', { body: { title, due_on: today, priority: 'high' } })).status).toBe(201);
  }
  const snippet = await t.api('POST', '/v1/snippets', { body: { type: 'sql', name: 'Active users', body: 'select count(*) from users where active' } });
  expect(snippet.status).toBe(201);
  slug = snippet.body.slug;
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await t?.close();
  await fake?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const questions = {
  milestone: { path: '/v1/milestones/M3/status', cli: ['milestone', 'status', 'M3'], tool: 'getMilestoneStatus', args: { ref: 'M3' } },
  todos: { path: '/v1/todos?due=week&done=false', cli: ['todos', 'list', '--due', 'week', '--no-done'], tool: 'listTodos', args: { due: 'week', done: false } },
  snippet: { path: () => `/v1/snippets/${slug}`, cli: () => ['snippets', 'get', slug], tool: 'getSnippet', args: () => ({ id: slug }) },
};

async function viaV1(path: string): Promise<unknown> {
  const res = await t.api('GET', path);
  expect(res.status).toBe(200);
  return res.body;
}

async function viaCli(args: string[]): Promise<unknown> {
  const r = await runTack([...args, '--json'], { env: { TACK_URL: t.url, TACK_TOKEN: t.token, HOME: home, XDG_CONFIG_HOME: home } });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

async function mcp(kind: 'http' | 'stdio'): Promise<Client> {
  if (kind === 'http') {
    const client = await connectMcp(t.url, t.token, 'one-answer');
    clients.push(client);
    return client;
  }
  const client = new Client({ name: 'one-answer', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [TACK_BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, TACK_URL: t.url, TACK_TOKEN: t.token },
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

async function viaMcp(client: Client, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return result.structuredContent;
}

async function viaSlack(command: string, text: string): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  const res = await slackClient(t.url, SECRET).command({ command, text, response_url, user_id: SLACK_USER });
  expect(res.status).toBe(200);
  const path = new URL(response_url).pathname;
  return fake.waitFor((c) => c.path === path);
}

describe('the same question gets the same answer from every client', () => {
  it('milestone status', async () => {
    const q = questions.milestone;
    const v1 = (await viaV1(q.path)) as Record<string, number>;
    expect(v1).toMatchObject({ cards_done: 1, cards_total: 2, criteria_done: 2, criteria_total: 4 });
    expect(await viaCli(q.cli)).toEqual(v1);
    expect(await viaMcp(await mcp('http'), q.tool, q.args)).toEqual(v1);
    expect(await viaMcp(await mcp('stdio'), q.tool, q.args)).toEqual(v1);
    const slack = (await viaSlack('/milestone', 'M3 status')).body as { text: string; blocks: unknown[] };
    expect(slack.text).toContain(`${v1.cards_done}/${v1.cards_total} cards done`);
    expect(slack.text).toContain(`${v1.criteria_done}/${v1.criteria_total} criteria done`);
  });

  it('my open todos due this week', async () => {
    const q = questions.todos;
    const v1 = (await viaV1(q.path)) as { data: { id: string }[] };
    expect(v1.data).toHaveLength(2);
    expect(await viaCli(q.cli)).toEqual({ data: v1.data });
    const http = (await viaMcp(await mcp('http'), q.tool, q.args)) as { data: unknown[] };
    expect(http.data).toEqual(v1.data);
    const stdio = (await viaMcp(await mcp('stdio'), q.tool, q.args)) as { data: unknown[] };
    expect(stdio.data).toEqual(v1.data);
    const slack = (await viaSlack('/todo', '')).body as { blocks: { accessory?: { value?: string } }[] };
    const ids = slack.blocks.flatMap((b) => (b.accessory?.value ? [b.accessory.value] : []));
    expect(ids.sort()).toEqual(v1.data.map((d) => d.id).sort());
  });

  it('a snippet', async () => {
    const q = questions.snippet;
    const v1 = (await viaV1(q.path())) as { name: string; version: number; public_url: string; body: string };
    expect(await viaCli(q.cli())).toEqual(v1);
    expect(await viaMcp(await mcp('http'), q.tool, q.args())).toEqual(v1);
    expect(await viaMcp(await mcp('stdio'), q.tool, q.args())).toEqual(v1);
    const slack = JSON.stringify((await viaSlack('/snippet', slug)).body);
    expect(slack).toContain(v1.name);
    expect(slack).toContain(`v${v1.version}`);
    expect(slack).toContain(v1.public_url);
    expect(slack).toContain(v1.body);
  });
});
