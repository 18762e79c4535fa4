import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedTables, fingerprint } from './helpers/db-fingerprint.js';
import { leaksIn } from './helpers/envelope.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { connectMcp } from './helpers/mcp-http.js';

/**
 * The other faces of the same operations, fuzzed as /v1 is in fuzz.test.ts: every MCP tool's
 * arguments over /mcp, and the text of every Slack command (signed, as Slack sends them).
 * No answer is an internal error or carries a stack, SQL, a path or a secret, the server keeps
 * serving, and a refused call changes nothing. Deterministic: the same cases every run.
 */

const SECRET = 'fuzz-faces-secret';
const BOT_TOKEN = 'xoxb-fuzz-faces-secret-token';
const USER = 'U0FUZZ';

let fake: FakeSlack;
let t: TestServer;
let mcp: Client;
let secrets: string[];

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_API_URL: fake.apiUrl });
  const me = await t.api('GET', '/v1/me');
  expect((await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: USER } })).status).toBe(200);
  mcp = await connectMcp(t.url, t.token, 'tack-fuzz');
  secrets = [t.token, SECRET, BOT_TOKEN];
});
afterAll(async () => {
  await mcp?.close().catch(() => {});
  await t?.close();
  await fake?.close();
});

const deep = (n: number): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < n; i++) v = [v];
  return v;
};

/** Values every argument gets in turn (the others left out). */
const HOSTILE: [string, unknown][] = [
  ['number', 12345],
  ['huge number', 1e308],
  ['negative zero', -0],
  ['boolean', true],
  ['null', null],
  ['array', [1, 'two', null]],
  ['object', { a: 1 }],
  ['64 KiB string', 'a'.repeat(64 * 1024)],
  ['NUL', 'a\u0000b'],
  ['lone surrogate', '\ud800x'],
  ['RTL and zero-width', '\u202Eevil\u200B\uFEFF'],
  ['SQL-looking', "x' or '1'='1"],
  ['numeric text', '1e400'],
  ['deep nesting', deep(5_000)],
];

interface ToolCall {
  label: string;
  name: string;
  args: Record<string, unknown>;
}

function callsFor(tool: Tool): ToolCall[] {
  const props = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
  const calls: ToolCall[] = [
    { label: 'no arguments', name: tool.name, args: {} },
    { label: 'unknown argument', name: tool.name, args: { not_an_argument: 1 } },
    { label: '__proto__ argument', name: tool.name, args: JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown> },
  ];
  for (const p of props) for (const [label, value] of HOSTILE) calls.push({ label: `${p} = ${label}`, name: tool.name, args: { [p]: value } });
  return calls;
}

/** What is wrong with one tool answer (empty when it is a result or a clean refusal). */
async function call(c: ToolCall): Promise<{ problems: string[]; refused: boolean }> {
  try {
    const result = (await mcp.callTool({ name: c.name, arguments: c.args })) as CallToolResult;
    const text = result.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
    const problems: string[] = [];
    if (result.isError) {
      if (/internal_error|Something went wrong/.test(text)) problems.push('an internal error');
      problems.push(...leaksIn(text, secrets).map((l) => `leaks ${l}`));
    }
    return { problems: problems.map((p) => `${c.name} [${c.label}]: ${p}: ${text.slice(0, 200)}`), refused: result.isError === true };
  } catch (err) {
    // A protocol-level refusal (JSON-RPC error) is fine when it is clean.
    const message = (err as Error).message;
    const problems = leaksIn(message, secrets).map((l) => `${c.name} [${c.label}]: protocol error leaks ${l}: ${message.slice(0, 200)}`);
    return { problems, refused: true };
  }
}

describe('fuzzing the MCP tools', () => {
  it('refuses arguments nested tens of thousands deep as invalid, not as an internal error (raw JSON-RPC)', async () => {
    const n = 50_000;
    const raw = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"createTodo","arguments":{"title":${'['.repeat(n)}${']'.repeat(n)}}}}`;
    const before = await fingerprint(t.database!);
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: raw,
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toContain('too_deep');
    expect(text).not.toMatch(/internal_error|Something went wrong/);
    expect(leaksIn(text, secrets)).toEqual([]);
    expect(changedTables(before, await fingerprint(t.database!))).toEqual([]);
  });


  it('answers every hostile argument with a result or a clean refusal, and a refused call changes nothing', { timeout: 120_000 }, async () => {
    const { tools } = await mcp.listTools();
    expect(tools.length).toBeGreaterThan(20);
    const calls = tools.flatMap(callsFor);
    const failures: string[] = [];
    const refused: ToolCall[] = [];
    let next = 0;
    const worker = async () => {
      while (next < calls.length) {
        const c = calls[next++]!;
        const r = await call(c);
        failures.push(...r.problems);
        if (r.refused) refused.push(c);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    // The refused calls once more, a share of them: still refused, and the database untouched.
    const before = await fingerprint(t.database!);
    for (const c of refused.filter((_, i) => i % 4 === 0)) {
      const r = await call(c);
      failures.push(...r.problems);
      if (!r.refused) failures.push(`${c.name} [${c.label}]: refused once, accepted when sent again`);
    }
    failures.push(...changedTables(before, await fingerprint(t.database!)).map((table) => `a refused tool call changed ${table}`));
    expect(failures, failures.join('\n')).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await t.api('GET', '/v1/me')).status).toBe(200);
  });
});

/**
 * leaksIn for Slack answers: their usage text rightly says "select" (a select menu), so SQL is
 * looked for as statements and Postgres's own words instead.
 */
function slackLeaks(text: string): string[] {
  const found = leaksIn(text, secrets).filter((l) => !l.startsWith('SQL'));
  if (/\b(insert into|select \S+ from|delete from|syntax error at|violates|relation ")/i.test(text)) found.push('SQL');
  return found;
}

describe('fuzzing the Slack command texts', () => {
  const TEXTS = [
    '',
    ' ',
    'a'.repeat(4000),
    '\u0000',
    'add \u0000',
    'add a\u0000b due:\u0000',
    'add \ud800 title',
    'add title due:2026-02-30',
    'add title due:99999-01-01',
    'add title due:1e400 !urgent!urgent',
    'done \u202Etodo_x',
    'done ' + 'x'.repeat(3000),
    'ENG-1e400 move done',
    'ENG-99999999999999999999 move done',
    '%00 move %zz',
    "x' or '1'='1 subscribe daily",
    'M1 subscribe ' + '\u200B'.repeat(100),
    '<@U123|evil> <!channel> <https://evil.example|x>',
    '*_~`>&<',
    JSON.stringify(deep(200)),
  ];
  const COMMANDS = ['/todo', '/card', '/milestone', '/snippet', '/tack'];

  it('acknowledges every command text, answers each at its response_url without an internal error or a leak, and keeps serving', { timeout: 120_000 }, async () => {
    const slack = slackClient(t.url, SECRET);
    const failures: string[] = [];
    for (const command of COMMANDS) {
      for (const text of TEXTS) {
        const label = `${command} ${JSON.stringify(text.slice(0, 30))}`;
        const response_url = fake.responseUrl();
        const res = await slack.command({ command, text, response_url, user_id: USER });
        if (res.status !== 200) failures.push(`${label}: status ${res.status} ${res.text.slice(0, 200)}`);
        failures.push(...slackLeaks(res.text).map((l) => `${label}: the acknowledgement leaks ${l}`));
        // Every command answers, in the acknowledgement or at its response_url.
        const path = new URL(response_url).pathname;
        const answer = res.text || JSON.stringify((await fake.waitFor((c) => c.path === path)).body);
        if (/Something went wrong/.test(answer)) failures.push(`${label}: an internal error`);
        failures.push(...slackLeaks(answer).map((l) => `${label}: the answer leaks ${l}: ${answer.slice(0, 200)}`));
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
    expect((await t.api('GET', '/v1/me')).status).toBe(200);
  });
});
