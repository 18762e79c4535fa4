import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postMilestoneSummaries } from '../jobs/milestone-summaries.js';
import { sendTodoReminders } from '../jobs/todo-reminders.js';
import { newId } from '../src/domain/ids.js';
import { todoBlocks, todoSnoozedBlocks } from '../src/slack/views/todos.js';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { jobDeps, slackEnv, todosListedIn } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * Text people wrote, full of Slack's control syntax, never reaches Slack as mrkdwn it would
 * act on: not in blocks and not in the fallback `text` (which notifications show, and which
 * Slack parses too). A milestone named `<!channel> …` pings nobody.
 */

const HOSTILE = '<!channel> & <@U0BOSS> <https://evil.example|click>';
const USER = 'U0HOST';

let fake: FakeSlack;
let t: TestServer;
let now = new Date('2026-06-01T00:00:00Z');

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  const me = await t.api('GET', '/v1/me');
  expect((await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: USER, tz: 'UTC' } })).status).toBe(200);
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Board', slug: 'b', ref_prefix: 'B' } })).status).toBe(201);
  expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M9', name: `Launch ${HOSTILE}`, kind: 'sprint' } })).status).toBe(201);
  await t.server.db.db
    .insertInto('slack_subscriptions')
    .values({ id: newId('sub'), org_id: me.body.org.id, milestone_ref: 'M9', channel_id: 'C0HOSTILE', cadence: 'daily', tz: 'UTC', created_by: me.body.member.id })
    .execute();
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clear());

/** Every piece of a message Slack reads as mrkdwn: the fallback text and each mrkdwn text object. */
function mrkdwnOf(body: Record<string, any>): string[] {
  const out: string[] = [String(body.text ?? '')];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push(o.text);
      Object.values(o).forEach(visit);
    }
  };
  visit(body.blocks);
  return out;
}

function expectInert(body: Record<string, any>): void {
  for (const text of mrkdwnOf(body)) {
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U0BOSS>');
    expect(text).not.toContain('<https://evil');
    expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
  }
  expect(mrkdwnOf(body)[0]).toContain('&lt;!channel&gt; &amp; &lt;@U0BOSS&gt;');
}

const snoozedText = (t: Parameters<typeof todoSnoozedBlocks>[0]) => JSON.stringify(todoSnoozedBlocks(t));

function buttonsOf(body: Record<string, any>): Array<{ text: { text: string } }> {
  return ((body.blocks ?? []) as any[]).flatMap((b) => (b.accessory?.type === 'button' ? [b.accessory] : []));
}

async function command(text: string, cmd = '/todo'): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  const res = await slackClient(t.url, 'jobs-secret').command({ command: cmd, text, response_url, user_id: USER }, { timestamp: Math.floor(now.getTime() / 1000) });
  expect(res.status).toBe(200);
  return fake.waitFor((c) => c.path === new URL(response_url).pathname);
}

describe('hostile text', () => {
  it('in a milestone name: the scheduled summary pings nobody', async () => {
    now = new Date('2026-06-01T10:00:00Z');
    expect(await postMilestoneSummaries(jobDeps(t, () => now))).toMatchObject({ sent: 1 });
    const [post] = fake.callsTo('chat.postMessage').filter((c) => c.body.channel === 'C0HOSTILE');
    expectInert(post!.body);
  });

  it('in a milestone name: /milestone status answers inert text', async () => {
    expectInert((await command('M9', '/milestone')).body);
  });

  it('in a todo title: the /todo reply, the list, the reminder and the Done replacement are inert', async () => {
    const added = await command(`add ${HOSTILE} due:2026-06-01`);
    expectInert(added.body);
    expectInert((await command('')).body);
    now = new Date('2026-06-01T11:00:00Z');
    expect(await sendTodoReminders(jobDeps(t, () => now))).toMatchObject({ sent: 1 });
    const reminder = fake.callsTo('chat.postMessage').find((c) => c.body.metadata?.event_type === 'tack_digest')!;
    expectInert(reminder.body);
    for (const button of buttonsOf(reminder.body)) expect(button.text.text.length).toBeLessThanOrEqual(75);

    const todoId = todosListedIn(reminder.body.blocks)[0]!;
    const response_url = fake.responseUrl();
    await slackClient(t.url, 'jobs-secret').click(
      { action_id: 'todo_done', value: todoId, response_url, user_id: USER },
      { timestamp: Math.floor(now.getTime() / 1000) },
    );
    const done = await fake.waitFor((c) => c.path === new URL(response_url).pathname || c.method === 'chat.update');
    expectInert(done.body);
  });

  it('in a command as Slack sends it (&, < and > escaped): stored as typed, shown escaped once', async () => {
    // Typed: Tom & Jerry <3 &lt;b&gt; (the last as text, which Slack escapes again).
    const typed = 'Tom & Jerry <3 &lt;b&gt;';
    const asSent = typed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const added = await command(`add ${asSent}`);
    expect(mrkdwnOf(added.body).join('\n')).toContain('Tom &amp; Jerry &lt;3 &amp;lt;b&amp;gt;');
    const todos = await t.api('GET', '/v1/todos?scope=personal&limit=100');
    expect(todos.body.data.map((x: { title: string }) => x.title)).toContain(typed);
  });

  it('in a card title: /card answers inert text', async () => {
    const card = await t.api('POST', '/v1/cards', { body: { board: 'b', title: HOSTILE } });
    expect(card.status).toBe(201);
    expectInert((await command(card.body.ref, '/card')).body);
  });

  it('with *, ~ or ` in a title: the bold and strike-through around it hold (look-alikes inside them, the notification text as typed)', async () => {
    const title = 'Fix *all* ~the~ `bugs` a*b';
    const inside = 'Fix \u2217all\u2217 \u223cthe\u223c \u02cbbugs\u02cb a\u2217b';
    const added = await command(`add ${title}`);
    const texts = mrkdwnOf(added.body);
    expect(texts.some((x) => x.includes(`*${inside}*`))).toBe(true);
    // Nothing of the title is left outside its bold, and the fallback keeps what was typed.
    expect(texts.slice(1).join('\n')).not.toContain('*all*');
    expect(texts[0]).toContain(title);
    const [todo] = (await t.api('GET', '/v1/todos?scope=personal&limit=100')).body.data.filter((x: { title: string }) => x.title === title);
    const done = todoBlocks({ ...todo, done: true }) as Array<{ text: { text: string } }>;
    expect(done[0]!.text.text).toBe(`:white_check_mark: ~${inside}~ done`);
    expect(snoozedText({ ...todo, due_on: '2026-06-02' })).toContain(`*${inside}* snoozed until 2026-06-02`);
  });
});
