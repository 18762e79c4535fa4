import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_PREFIX } from '../src/domain/token-format.js';
import { briefError } from '../src/log-error.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { captureLog, type CapturedLog } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { waitFor } from './helpers/wait.js';

/*
 * A Slack delivery that fails on something other than a domain error is logged as one short
 * record (the error's type, code and message), as the HTTP side logs a database outage: no
 * stack, and nothing the error object drags along (Slack's answer, the causes a request
 * error wraps, each with its stack), nor a token.
 */

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BOT_TOKEN = 'xoxb-1111-2222-NotARealTokenButShaped';
const LINKED = 'U0ERRLOG';

let fake: FakeSlack;
let t: TestServer;
let captured: CapturedLog;
let slack: ReturnType<typeof slackClient>;

beforeAll(async () => {
  fake = await startFakeSlack();
  captured = captureLog('info');
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_API_URL: fake.apiUrl }, { log: captured.log });
  slack = slackClient(t.url, SECRET);
  const me = await t.api('GET', '/v1/me');
  expect((await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: LINKED } })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
// Each test looks at the records logged since it began.
let from = 0;
const lines = () => captured.lines().slice(from);
beforeEach(() => {
  fake.clear();
  from = captured.lines().length;
});

/** The one record logged with `msg`, once it is there. */
async function recordOf(msg: string): Promise<Record<string, unknown>> {
  await waitFor(`a "${msg}" record`, () => lines().some((l) => l.msg === msg));
  const records = lines().filter((l) => l.msg === msg);
  expect(records).toHaveLength(1);
  return records[0]!;
}

function expectNothingLeaked(): void {
  const text = lines().map((l) => JSON.stringify(l)).join('\n');
  expect(text).not.toContain('"stack"');
  expect(text).not.toContain(BOT_TOKEN);
  expect(text).not.toMatch(/xox[a-z]-/);
}

describe('a Slack delivery that fails', () => {

  it('a form Slack refuses to open: one short record, the person told what Slack said', async () => {
    fake.handleOnce('views.open', { body: { ok: false, error: 'invalid_auth' } });
    const response_url = fake.responseUrl();
    expect((await slack.command({ command: '/todo', text: 'add', response_url, user_id: LINKED })).status).toBe(200);
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    expect(reply.body.text).toContain('Slack did not open the form (invalid_auth)');
    const record = await recordOf('Slack did not open the todo form');
    expect(record.err).toBe('token: invalid_auth');
    expectNothingLeaked();
  });

  it('a form whose views.open gets no answer: the request error alone, not the causes it wraps', async () => {
    // Bolt's client tries four times (a few hundred milliseconds apart).
    fake.handle('views.open', { destroy: true });
    try {
      const response_url = fake.responseUrl();
      expect((await slack.command({ command: '/todo', text: 'add', response_url, user_id: LINKED })).status).toBe(200);
      const record = await recordOf('Slack did not open the todo form');
      expect(record.err).toMatch(/^unknown: /);
      expect(String(record.err).length).toBeLessThanOrEqual(220);
      expect(fake.callsTo('views.open')[0]!.authorization).toBe(`Bearer ${BOT_TOKEN}`);
      const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
      expect(reply.body.text).toContain('Slack did not open the form');
    } finally {
      fake.handle('views.open', (call) => fake.answerAsSlack(call));
    }
    expectNothingLeaked();
  });

  it('a reply the response_url refuses (500): the delivery failure is one short record', async () => {
    const response_url = fake.responseUrl();
    fake.handleOnce('response', { status: 500, body: { ok: false, error: 'internal_error' } });
    expect((await slack.command({ command: '/todo', text: 'add Replied to nobody', response_url, user_id: LINKED })).status).toBe(200);
    const record = await recordOf('Slack delivery failed');
    expect(record.error).toEqual({ type: 'RespondError', code: 'slack_bolt_respond_error', message: 'Failed to respond to the response_url: 500 Internal Server Error' });
    expectNothingLeaked();
  });
});

describe('briefError', () => {
  it('keeps type, code and message, and no token the message quotes', () => {
    const err = Object.assign(new Error(`refused xoxb-1-2-abc, xapp-1-A0-9f and ${TOKEN_PREFIX}abc123 alike`), { code: 'E_X', detail: 'SELECT secret' });
    expect(briefError(err)).toEqual({ type: 'Error', code: 'E_X', message: 'refused [redacted], [redacted] and [redacted] alike' });
    expect(briefError('thrown text')).toEqual({ type: 'Error', message: 'thrown text' });
  });
});
