import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import type { JobDeps } from '../../jobs/index.js';
import { slackWebClient } from '../../src/slack/web-client.js';
import { memberWithToken, type Fields } from './factories.js';
import type { FakeSlack, RecordedCall } from './fake-slack.js';
import type { TestServer } from './server.js';

/** Environment that turns the Slack app (and so the jobs) on, against the fake. */
export function slackEnv(fake: FakeSlack, extra: Record<string, string> = {}): Record<string, string> {
  return { SLACK_SIGNING_SECRET: 'jobs-secret', SLACK_BOT_TOKEN: 'xoxb-jobs', SLACK_API_URL: fake.apiUrl, ...extra };
}

/** What the jobs run with in the test server, on a clock of the test's choosing. */
export function jobDeps(t: TestServer, clock: () => Date, overrides: Partial<JobDeps> = {}): JobDeps {
  const log = overrides.log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  return { db: t.server.db.db, slack: slackWebClient(t.config, log), clock, config: t.config, log, ...overrides };
}

export interface CapturedLog {
  log: Logger;
  /** Every line logged so far, parsed. */
  lines: () => Array<Record<string, unknown> & { level: number; msg?: string }>;
}

/** A pino logger that keeps what it logs, for tests that check what an operator would read. */
export function captureLog(level: pino.Level = 'info'): CapturedLog {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { log: pino({ level }, stream), lines: () => raw.map((l) => JSON.parse(l)) };
}

export interface TestMember {
  id: string;
  token: string;
}

/** A member of the bootstrap organization with a read/write token of their own. */
export async function addMember(t: TestServer, body: Pick<Fields<'/members'>, 'name' | 'slack_user_id' | 'tz' | 'role'>): Promise<TestMember> {
  const { id, token } = await memberWithToken(t, { role: 'member', ...body }, { name: `${body.name} token`, scopes: ['read', 'write'] });
  return { id, token };
}

export async function addTodo(t: TestServer, member: TestMember, body: Record<string, unknown>): Promise<{ id: string; title: string }> {
  const res = await t.api('POST', '/v1/todos', { token: member.token, body });
  if (res.status !== 201) throw new Error(`createTodo: ${res.status} ${res.text}`);
  return res.body;
}

/** The reminder messages posted: one a member and day (chat.postMessage calls carrying a tack_digest marker). */
export function remindersIn(calls: RecordedCall[]): RecordedCall[] {
  return calls.filter((c) => c.method === 'chat.postMessage' && c.body.metadata?.event_type === 'tack_digest');
}

/** The todo ids a reminder message (posted or updated) lists with Done and Snooze: its `todo:<id>` blocks. */
export function todosListedIn(blocks: unknown): string[] {
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((b: { block_id?: string }) => {
    const m = /^todo:(todo_[^:]+)$/.exec(b.block_id ?? '');
    return m ? [m[1]!] : [];
  });
}

/**
 * How many reminders each todo got: how many posted reminder messages listed it, or, for a
 * todo that joined a day's message after it went out (chat.update), how many messages took it.
 */
export function remindersPerTodo(calls: RecordedCall[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of remindersIn(calls)) {
    for (const id of todosListedIn(c.body.blocks)) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const joined = new Map<string, Set<string>>();
  for (const c of calls.filter((x) => x.method === 'chat.update')) {
    for (const id of todosListedIn(c.body.blocks)) {
      if (counts.has(id)) continue;
      joined.set(id, (joined.get(id) ?? new Set()).add(`${c.body.channel} ${c.body.ts}`));
    }
  }
  for (const [id, messages] of joined) counts.set(id, messages.size);
  return counts;
}

/** Polls `check` until it holds or `timeoutMs` passes. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
