import { TZDate } from '@date-fns/tz';
import { addDays, format } from 'date-fns';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { operations } from '../src/operations/index.js';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * Each command end to end, against the operations of issues 3 and 4. Until those are merged
 * into this branch the operations are missing and these suites are skipped; they run by
 * themselves once the operations exist.
 */
const has = (...names: string[]) => names.every((n) => operations.some((op) => op.name === n));

const SECRET = 'commands-secret';
const USER = 'U0CMD';
const TZ = 'Pacific/Auckland';

let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;

const anyCommands = has('getMilestoneStatus') || has('createTodo') || has('getCard') || has('getSnippet');

beforeAll(async () => {
  if (!anyCommands) return;
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl });
  slack = slackClient(t.url, SECRET);
  const me = await t.api('GET', '/v1/me');
  await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: USER, tz: TZ } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake?.clear());

async function run(command: string, text: string, user = USER): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  const res = await slack.command({ command, text, response_url, user_id: user });
  expect(res.status).toBe(200);
  const path = new URL(response_url).pathname;
  return fake.waitFor((c) => c.path === path);
}

function buttons(blocks: any[] | undefined): { action_id: string; value: string }[] {
  return (blocks ?? []).flatMap((b) => (b.accessory?.type === 'button' ? [b.accessory] : []));
}

describe.skipIf(!has('createBoard', 'createMilestone', 'createCard', 'moveCard', 'getMilestoneStatus'))('/milestone <ref> status', () => {
  beforeAll(async () => {
    expect((await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' } })).status).toBe(201);
    expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M3', name: 'Sprint 3', kind: 'sprint', ends_on: '2030-01-31' } })).status).toBe(201);
    const a = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Login', milestone: 'M3', criteria: ['form', 'tests'] } });
    await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Logout', milestone: 'M3', criteria: ['button'] } });
    await t.api('PATCH', `/v1/cards/${a.body.id}`, { body: { workflow_status: 'done' } });
  });

  it('answers with the same four numbers as /v1', async () => {
    const status = (await t.api('GET', '/v1/milestones/M3/status')).body;
    for (const text of ['M3', 'M3 status']) {
      const reply = await run('/milestone', text);
      expect(reply.body.response_type).toBe('ephemeral');
      expect(reply.body.text).toBe(
        `M3 Sprint 3: ${status.cards_done}/${status.cards_total} cards done, ${status.criteria_done}/${status.criteria_total} criteria done`,
      );
    }
  });

  it("answers an unknown ref with the /v1 error's user_message", async () => {
    const v1 = await t.api('GET', '/v1/milestones/M404/status');
    expect(v1.status).toBe(404);
    expect((await run('/milestone', 'M404')).body.text).toBe(v1.body.user_message);
  });

  // Needs the TODO(milestones) in src/domain/slack-subscriptions.ts: check the ref on subscribe.
  it('refuses to subscribe a channel to a milestone that does not exist', async () => {
    const v1 = await t.api('GET', '/v1/milestones/M404/status');
    expect((await run('/milestone', 'M404 subscribe')).body.text).toBe(v1.body.user_message);
  });
});

describe.skipIf(!has('createTodo', 'listTodos', 'completeTodo'))('/todo and the Done button', () => {
  it('adds a todo due tomorrow in the caller’s time zone, with its priority', async () => {
    const tomorrow = format(addDays(new TZDate(Date.now(), TZ), 1), 'yyyy-MM-dd');
    const reply = await run('/todo', 'add Pay the rent due:tomorrow !high');
    expect(reply.body.text).toBe(`Added todo "Pay the rent" (high, due ${tomorrow}).`);
    const list = await t.api('GET', '/v1/todos?due=week&done=false');
    expect(list.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ title: 'Pay the rent', priority: 'high', due_on: tomorrow, done: false })]));
  });

  it('lists open todos due this week, each with a Done button', async () => {
    const list = (await t.api('GET', '/v1/todos?due=week&done=false')).body.data as { id: string }[];
    const reply = await run('/todo', '');
    expect(buttons(reply.body.blocks)).toEqual(list.map((todo) => expect.objectContaining({ action_id: 'todo_done', value: todo.id })));
  });

  it('completes a todo from the Done button of an ephemeral list and replaces the list', async () => {
    const created = await t.api('POST', '/v1/todos', { body: { title: 'Water plants', due_on: format(new TZDate(Date.now(), TZ), 'yyyy-MM-dd') } });
    expect(created.status).toBe(201);
    const response_url = fake.responseUrl();
    const res = await slack.click({ action_id: 'todo_done', value: created.body.id, response_url, user_id: USER });
    expect(res.status).toBe(200);
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    expect(reply.body.replace_original).toBe(true);
    expect(reply.body.text).toContain('Done: Water plants');
    expect(buttons(reply.body.blocks).map((b) => b.value)).not.toContain(created.body.id);
    const done = await t.api('GET', '/v1/todos?done=true');
    expect(done.body.data.find((x: { id: string }) => x.id === created.body.id)?.done).toBe(true);
  });

  it('replaces a reminder message with its done state', async () => {
    const created = await t.api('POST', '/v1/todos', { body: { title: 'Call Bo' } });
    const response_url = fake.responseUrl();
    const blocks = [
      { type: 'section', block_id: 'head', text: { type: 'mrkdwn', text: 'Due today' } },
      {
        type: 'section',
        block_id: `todo:${created.body.id}`,
        text: { type: 'mrkdwn', text: '*Call Bo*' },
        accessory: { type: 'button', action_id: 'todo_done', value: created.body.id, text: { type: 'plain_text', text: 'Done' } },
      },
    ];
    await slack.click({ action_id: 'todo_done', value: created.body.id, response_url, user_id: USER, channel_id: 'D0DM', message: { ts: '1700000000.000100', text: 'Reminder', blocks } });
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    expect(reply.body.replace_original).toBe(true);
    expect(reply.body.blocks[0].block_id).toBe('head');
    expect(JSON.stringify(reply.body.blocks[1])).toContain('~Call Bo~ done');
    expect(buttons(reply.body.blocks)).toEqual([]);
  });

  it('completes a todo by id, and answers an unknown one with the /v1 message', async () => {
    const created = await t.api('POST', '/v1/todos', { body: { title: 'File taxes' } });
    const reply = await run('/todo', `done ${created.body.id}`);
    expect(reply.body.text).toBe('Done: File taxes');
    const v1 = await t.api('POST', '/v1/todos/todo_nope/done');
    expect((await run('/todo', 'done todo_nope')).body.text).toBe(v1.body.user_message);
  });

  it('lets a viewer read but not add', async () => {
    await t.api('POST', '/v1/members', { body: { name: 'Vic', role: 'viewer', slack_user_id: 'U0VIC' } });
    expect((await run('/todo', 'add nope', 'U0VIC')).body.text).toBe('Viewers can read but not change anything.');
  });
});

describe.skipIf(!has('createBoard', 'createCard', 'getCard', 'moveCard'))('/card', () => {
  let ref: string;
  beforeAll(async () => {
    await t.api('POST', '/v1/boards', { body: { name: 'Ops', slug: 'ops', ref_prefix: 'OPS' } });
    ref = (await t.api('POST', '/v1/cards', { body: { board: 'ops', title: 'Rotate keys' } })).body.ref;
  });

  it('shows a card and moves it, statuses read leniently', async () => {
    expect((await run('/card', ref)).body.text).toBe(`${ref} Rotate keys (Backlog)`);
    const moved = await run('/card', `${ref} move in-progress`);
    expect(moved.body.text).toContain('In progress');
    expect((await t.api('GET', `/v1/cards/${ref}`)).body.workflow_status).toBe('in_progress');
  });

  it("answers an unknown card with the /v1 error's user_message", async () => {
    const v1 = await t.api('GET', '/v1/cards/OPS-999');
    expect((await run('/card', 'OPS-999')).body.text).toBe(v1.body.user_message);
  });
});

describe.skipIf(!has('createSnippet', 'getSnippet'))('/snippet', () => {
  it('shows a snippet by slug or id, and refuses an unknown one with the /v1 message', async () => {
    const created = await t.api('POST', '/v1/snippets', { body: { type: 'sql', name: 'Active users', body: 'select 1;' } });
    expect(created.status).toBe(201);
    for (const key of [created.body.slug, created.body.id]) {
      const reply = await run('/snippet', key);
      expect(reply.body.text).toBe(`Active users (${created.body.slug}, v1)`);
      expect(JSON.stringify(reply.body.blocks)).toContain('select 1;');
    }
    const v1 = await t.api('GET', '/v1/snippets/snp_nope');
    expect((await run('/snippet', 'snp_nope')).body.text).toBe(v1.body.user_message);
  });
});
