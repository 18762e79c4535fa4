import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { memberWithToken, type Fields } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * One time-zone rule everywhere (contract §9): the member's `tz`; else, for a Slack user, the
 * linked Slack profile's; else UTC. `today` (getMe) and each todo's `due_state` come from the
 * API in that zone, so no client works days out on its own.
 */

const SECRET = 'time-zone-secret';
/** A Slack user in Tokyo whose tack member set no zone. */
const TOKYO_USER = 'U0TOKYO';

let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;
/** The app's clock, moved by the tests. */
let now = new Date('2026-01-16T23:30:00Z');
const clock = () => now;
/** Slack signs with its own time; tack checks it against its (moved) clock. */
const slackTime = () => ({ timestamp: Math.floor(now.getTime() / 1000) });

beforeAll(async () => {
  fake = await startFakeSlack();
  fake.handle('users.info', (call) => ({
    body: { ok: true, user: { id: call.body.user, team_id: 'T0001', name: 'someone', tz: call.body.user === TOKYO_USER ? 'Asia/Tokyo' : 'UTC', profile: {} } },
  }));
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl }, { clock });
  slack = slackClient(t.url, SECRET);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake?.clear());

async function slashCommand(command: string, text: string, user: string): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  const res = await slack.command({ command, text, response_url, user_id: user }, slackTime());
  expect(res.status).toBe(200);
  const path = new URL(response_url).pathname;
  return fake.waitFor((c) => c.path === path);
}

/** A member with a token of their own (read, write). */
async function member(name: string, fields: Partial<Fields<'/members'>> = {}): Promise<{ id: string; token: string }> {
  return memberWithToken(t, { name, role: 'member', ...fields }, { name: `${name}'s`, scopes: ['read', 'write'] });
}

describe('a Slack user without a zone of their own', () => {
  it("reads `today` in their Slack profile's zone, and no face then calls that todo overdue", async () => {
    // 23:30 UTC on the 16th is 08:30 on the 17th in Tokyo: before 09:00 there.
    now = new Date('2026-01-16T23:30:00Z');
    const kenji = await member('Kenji', { slack_user_id: TOKYO_USER });
    const reply = await slashCommand('/todo', 'add Ship the release due:today', TOKYO_USER);
    expect(reply.body.text).toContain('2026-01-17');

    const todos = await t.api('GET', '/v1/todos?limit=100', { token: kenji.token });
    const shipped = todos.body.data.find((x: { title: string }) => x.title === 'Ship the release');
    expect(shipped.due_on).toBe('2026-01-17');
    // Outside Slack there is no Slack profile: his days are UTC's, where the 17th is tomorrow.
    expect(shipped.due_state).toBe('week');
    const me = await t.api('GET', '/v1/me', { token: kenji.token });
    expect(me.body.today).toBe('2026-01-16');
    expect(me.body.time_zone).toBe('UTC');
    const overdue = await t.api('GET', '/v1/todos?due=overdue', { token: kenji.token });
    expect(overdue.body.data).toEqual([]);

    // In Slack the todo is his today's: `/todo` (due this week, in his zone) lists it.
    const list = await slashCommand('/todo', '', TOKYO_USER);
    expect(list.body.text).toContain('Ship the release');
  });

  it("snoozes to tomorrow in the Slack profile's zone", async () => {
    now = new Date('2026-01-16T23:30:00Z');
    const aiko = await member('Aiko', { slack_user_id: 'U0AIKO' });
    fake.handle('users.info', (call) => ({ body: { ok: true, user: { id: call.body.user, team_id: 'T0001', name: 'someone', tz: 'Asia/Tokyo', profile: {} } } }));
    const todo = await t.api('POST', '/v1/todos', { token: aiko.token, body: { title: 'Call the printer', due_on: '2026-01-17' } });
    const response_url = fake.responseUrl();
    const res = await slack.click({ user_id: 'U0AIKO', action_id: 'todo_snooze_tomorrow', value: todo.body.id, response_url, block_id: `todo:${todo.body.id}:snooze` }, slackTime());
    expect(res.status).toBe(200);
    await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    const after = await t.api('GET', '/v1/todos?limit=100', { token: aiko.token });
    expect(after.body.data.find((x: { id: string }) => x.id === todo.body.id).due_on).toBe('2026-01-18');
  });

  it("follows the member's own zone over the Slack profile's once they set one", async () => {
    now = new Date('2026-01-16T23:30:00Z');
    const yuki = await member('Yuki', { slack_user_id: 'U0YUKI', tz: 'America/New_York' });
    fake.handle('users.info', (call) => ({ body: { ok: true, user: { id: call.body.user, team_id: 'T0001', name: 'someone', tz: 'Asia/Tokyo', profile: {} } } }));
    await slashCommand('/todo', 'add Water the plants due:today', 'U0YUKI');
    const todos = await t.api('GET', '/v1/todos?limit=100', { token: yuki.token });
    // 18:30 on the 16th in New York.
    expect(todos.body.data.find((x: { title: string }) => x.title === 'Water the plants').due_on).toBe('2026-01-16');
    expect(fake.callsTo('users.info')).toEqual([]);
  });
});

describe('today and due_state from the API', () => {
  it('gives every todo read a due_state that agrees with the due filters, and flips at the member’s midnight', async () => {
    // New York is UTC-5 in January: 04:30Z is 23:30 on the 15th there, 05:30Z 00:30 on the 16th.
    now = new Date('2026-01-16T04:30:00Z');
    const yann = await member('Yann', { tz: 'America/New_York' });
    const as = { token: yann.token };
    const byDue = new Map<string, string>();
    const created: Record<string, { id: string; due_state: string }> = {};
    for (const due of ['2026-01-14', '2026-01-15', '2026-01-16', '2026-01-21', '2026-01-22', '2026-03-01']) {
      const res = await t.api('POST', '/v1/todos', { ...as, body: { title: `due ${due}`, due_on: due } });
      expect(res.status).toBe(201);
      created[due] = res.body;
      byDue.set(res.body.id, due);
    }
    const undated = await t.api('POST', '/v1/todos', { ...as, body: { title: 'no date' } });
    expect(undated.body.due_state).toBe('none');
    byDue.set(undated.body.id, 'none');
    // The createTodo answer carries it.
    expect(created['2026-01-14']!.due_state).toBe('overdue');
    expect(created['2026-01-15']!.due_state).toBe('today');
    expect(created['2026-01-16']!.due_state).toBe('week');
    expect(created['2026-03-01']!.due_state).toBe('later');

    // completeTodo, reopenTodo and updateTodo answer it too; a done todo is late no more.
    const done = await t.api('POST', `/v1/todos/${created['2026-01-14']!.id}/done`, as);
    expect(done.body.due_state).toBe('none');
    const reopened = await t.api('POST', `/v1/todos/${created['2026-01-14']!.id}/reopen`, as);
    expect(reopened.body.due_state).toBe('overdue');
    const redated = await t.api('PATCH', `/v1/todos/${created['2026-03-01']!.id}`, { ...as, body: { due_on: 'tomorrow' } });
    expect(redated.body).toMatchObject({ due_on: '2026-01-16', due_state: 'week' });
    byDue.set(redated.body.id, '2026-01-16');
    const back = await t.api('PATCH', `/v1/todos/${created['2026-03-01']!.id}`, { ...as, body: { due_on: '2026-03-01' } });
    expect(back.body.due_state).toBe('later');
    byDue.set(back.body.id, '2026-03-01');

    const states = async () => {
      const res = await t.api('GET', '/v1/todos?limit=100', as);
      return Object.fromEntries(res.body.data.map((x: { id: string; due_state: string }) => [byDue.get(x.id), x.due_state]));
    };
    const filtered = async (due: string) => (await t.api('GET', `/v1/todos?due=${due}&limit=100`, as)).body.data.map((x: { id: string }) => byDue.get(x.id)).sort();
    const agree = async () => {
      const s = await states();
      const having = (...wanted: string[]) => Object.keys(s).filter((d) => wanted.includes(s[d])).sort();
      expect(await filtered('overdue')).toEqual(having('overdue'));
      expect(await filtered('today')).toEqual(having('today'));
      expect(await filtered('week')).toEqual(having('today', 'week'));
      return s;
    };

    expect(await agree()).toEqual({ '2026-01-14': 'overdue', '2026-01-15': 'today', '2026-01-16': 'week', '2026-01-21': 'week', '2026-01-22': 'later', '2026-03-01': 'later', none: 'none' });
    expect((await t.api('GET', '/v1/me', as)).body.today).toBe('2026-01-15');

    now = new Date('2026-01-16T05:30:00Z');
    expect(await agree()).toEqual({ '2026-01-14': 'overdue', '2026-01-15': 'overdue', '2026-01-16': 'today', '2026-01-21': 'week', '2026-01-22': 'week', '2026-03-01': 'later', none: 'none' });
    // The same token's getMe, served from its cache the moment before: a new day, a new answer.
    expect((await t.api('GET', '/v1/me', as)).body.today).toBe('2026-01-16');
  });

  it('says today in UTC for a member without a zone, and a new today from the first second after midnight', async () => {
    now = new Date('2026-01-16T23:59:30Z');
    const me = await t.api('GET', '/v1/me');
    expect(me.body).toMatchObject({ today: '2026-01-16', time_zone: 'UTC' });
    expect((await t.api('GET', '/v1/me')).body.today).toBe('2026-01-16');
    // 40 s later: the token's principal (and getMe's answer cached with it) is the same one.
    now = new Date('2026-01-17T00:00:10Z');
    expect((await t.api('GET', '/v1/me')).body.today).toBe('2026-01-17');
  });

  it('declares today and due_state in the OpenAPI document', async () => {
    const doc = (await t.api('GET', '/v1/openapi.json', { token: null })).body;
    const json = JSON.stringify(doc);
    expect(json).toContain('"due_state"');
    const me = doc.paths['/me'].get.responses['200'].content['application/json'].schema;
    const meSchema = me.$ref ? doc.components.schemas[me.$ref.split('/').pop()] : me;
    expect(meSchema.required).toEqual(expect.arrayContaining(['today', 'time_zone', 'abilities']));
    expect(meSchema.properties.today.format).toBe('date');
  });
});
