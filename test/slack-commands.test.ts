import { TZDate } from '@date-fns/tz';
import { addDays, format } from 'date-fns';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blocksTextLength } from '../src/slack/views/blocks.js';
import { member, memberWithToken } from './helpers/factories.js';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * Each command end to end: signed Slack requests into the real server, replies caught by the
 * fake Slack at their response_url, and what changed checked through /v1.
 */

const SECRET = 'commands-secret';
const USER = 'U0CMD';
const TZ = 'Pacific/Auckland';

let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: fake.apiUrl });
  slack = slackClient(t.url, SECRET);
  const me = await t.api('GET', '/v1/me');
  expect((await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: USER, tz: TZ } })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake?.clear());

const db = () => t.server.db.db;

async function run(command: string, text: string, user = USER, channel_id?: string): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  const res = await slack.command({ command, text, response_url, user_id: user, ...(channel_id ? { channel_id } : {}) });
  expect(res.status).toBe(200);
  expect(res.text).toBe('');
  const path = new URL(response_url).pathname;
  return fake.waitFor((c) => c.path === path);
}

function buttons(blocks: any[] | undefined): { action_id: string; value: string }[] {
  return (blocks ?? []).flatMap((b) => (b.accessory?.type === 'button' ? [b.accessory] : []));
}

/** Every text object of a message, with what Slack allows it. */
function expectWithinSlackLimits(body: Record<string, any>): void {
  const blocks = (body.blocks ?? []) as any[];
  expect(blocks.length).toBeLessThanOrEqual(50);
  for (const b of blocks) {
    if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(b.type === 'header' ? 150 : 3000);
    for (const f of b.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(2000);
    for (const e of b.elements ?? []) if (typeof e.text === 'string') expect(e.text.length).toBeLessThanOrEqual(3000);
  }
}

/** A member linked to `slackUserId`, with a token of their own for /v1. */
async function linkedMember(name: string, slackUserId: string, tz?: string): Promise<{ id: string; token: string }> {
  return memberWithToken(t, { name, role: 'member', slack_user_id: slackUserId, ...(tz ? { tz } : {}) }, { name: `${name}'s`, scopes: ['read', 'write'] });
}

describe('/milestone', () => {
  beforeAll(async () => {
    expect((await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' } })).status).toBe(201);
    expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M3', name: 'Sprint 3', kind: 'sprint', ends_on: '2030-01-31' } })).status).toBe(201);
    const a = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Login', milestone: 'M3', criteria: ['form', 'tests'] } });
    const b = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Logout', milestone: 'M3', criteria: ['button'] } });
    await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Elsewhere', criteria: ['not counted'] } });
    expect((await t.api('PATCH', `/v1/cards/${a.body.id}`, { body: { workflow_status: 'done' } })).status).toBe(200);
    // A ticked criterion on a card that is not done: counted apart from card status.
    const crit = await t.api('GET', `/v1/cards/${b.body.id}/criteria`);
    expect((await t.api('PATCH', `/v1/cards/${b.body.id}/criteria/${crit.body.data[0].id}`, { body: { done: true } })).status).toBe(200);
  });

  it('answers status with the same four numbers as GET /v1/milestones/M3/status', async () => {
    const status = (await t.api('GET', '/v1/milestones/M3/status')).body;
    expect(status).toMatchObject({ cards_done: 1, cards_total: 2, criteria_done: 1, criteria_total: 3 });
    for (const text of ['M3', 'M3 status', 'm3 STATUS']) {
      const reply = await run('/milestone', text);
      expect(reply.body.response_type).toBe('ephemeral');
      expect(reply.body.text).toBe(
        `M3 Sprint 3: ${status.cards_done}/${status.cards_total} cards done, ${status.criteria_done}/${status.criteria_total} criteria done`,
      );
      const fields = JSON.stringify(reply.body.blocks);
      expect(fields).toContain(`*Cards done*\\n${status.cards_done} / ${status.cards_total}`);
      expect(fields).toContain(`*Criteria done*\\n${status.criteria_done} / ${status.criteria_total}`);
    }
  });

  it("answers an unknown ref with the /v1 error's user_message", async () => {
    const v1 = await t.api('GET', '/v1/milestones/M404/status');
    expect(v1.status).toBe(404);
    const reply = await run('/milestone', 'M404');
    expect(reply.body).toMatchObject({ response_type: 'ephemeral', text: v1.body.user_message });
  });

  it('refuses to subscribe a channel to a milestone that does not exist, and stores nothing', async () => {
    const v1 = await t.api('GET', '/v1/milestones/M404/status');
    const reply = await run('/milestone', 'M404 subscribe', USER, 'C0NOPE');
    expect(reply.body).toMatchObject({ response_type: 'ephemeral', text: v1.body.user_message });
    expect(await db().selectFrom('slack_subscriptions').selectAll().where('channel_id', '=', 'C0NOPE').execute()).toEqual([]);
  });

  it('subscribes under the milestone’s own ref, whatever the case typed, and unsubscribes the same way', async () => {
    const reply = await run('/milestone', 'm3 subscribe daily', USER, 'C0CASE');
    expect(reply.body.text).toBe(`This channel now gets M3's status daily at 09:00 (${TZ}).`);
    const rows = await db().selectFrom('slack_subscriptions').selectAll().where('channel_id', '=', 'C0CASE').execute();
    expect(rows).toMatchObject([{ milestone_ref: 'M3', cadence: 'daily', tz: TZ }]);
    expect((await run('/milestone', 'M3 subscribe weekly', USER, 'C0CASE')).body.text).toContain('Updated');
    expect((await run('/milestone', 'm3 unsubscribe', USER, 'C0CASE')).body.text).toBe("This channel no longer gets m3's status.");
    expect(await db().selectFrom('slack_subscriptions').selectAll().where('channel_id', '=', 'C0CASE').execute()).toEqual([]);
  });

  it('posts the confirmation in the channel as the bot, which proves it may post there', async () => {
    await run('/milestone', 'M3 subscribe', USER, 'C0BOTOK');
    const posts = fake.callsTo('chat.postMessage').filter((c) => c.body.channel === 'C0BOTOK');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.authorization).toBe('Bearer xoxb-test');
    expect(posts[0]!.body.text).toContain("subscribed this channel to M3's status, weekly at 09:00");
  });

  for (const error of ['not_in_channel', 'channel_not_found', 'is_archived']) {
    it(`refuses a channel the bot cannot post to (${error}): "invite @tack first", and stores nothing`, async () => {
      const channel = `C0NO${error.slice(0, 6).replace(/_/g, '').toUpperCase()}`;
      fake.handle('chat.postMessage', (call) => (call.body.channel === channel ? { body: { ok: false, error } } : fake.answerAsSlack(call)));
      try {
        const reply = await run('/milestone', 'M3 subscribe daily', USER, channel);
        expect(reply.body.response_type).toBe('ephemeral');
        expect(reply.body.text).toContain('so it is not subscribed. Invite @tack first');
        expect(reply.body.text).toContain(error);
      } finally {
        fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
      }
      expect(await db().selectFrom('slack_subscriptions').selectAll().where('channel_id', '=', channel).execute()).toEqual([]);
    });
  }
});

describe('/todo and the Done button', () => {
  const todayIn = (tz: string) => format(new TZDate(Date.now(), tz), 'yyyy-MM-dd');

  it('adds a todo due tomorrow in the caller’s time zone, with its priority', async () => {
    const tomorrow = format(addDays(new TZDate(Date.now(), TZ), 1), 'yyyy-MM-dd');
    const reply = await run('/todo', 'add Pay the rent due:tomorrow !high');
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.body.text).toBe(`Added todo "Pay the rent" (high, due ${tomorrow}).`);
    const list = await t.api('GET', '/v1/todos?due=week&done=false');
    expect(list.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ title: 'Pay the rent', priority: 'high', due_on: tomorrow, done: false })]));
    for (const [text, priority] of [
      ['add a !urgent', 'urgent'],
      ['add b !low', 'low'],
      ['add c', 'medium'],
    ] as const) {
      expect((await run('/todo', text)).body.text).toContain(`(${priority})`);
    }
  });

  it('reads today in the member’s own time zone, else their Slack profile’s (contract §9)', async () => {
    // A zone whose date differs from UTC's right now, given as the Slack profile's.
    const far = new Date().getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
    expect(todayIn(far)).not.toBe(todayIn('UTC'));
    const plain = await linkedMember('Zed', 'U0ZED');
    fake.handle('users.info', (call) => ({ body: { ok: true, user: { id: call.body.user, tz: far, profile: {} } } }));
    try {
      const reply = await run('/todo', 'add Stretch due:today', 'U0ZED');
      expect(reply.body.text).toBe(`Added todo "Stretch" (medium, due ${todayIn(far)}).`);
      // /v1 knows no Slack profile: there this member's days are UTC's, and the todo is not today's.
      const today = await t.api('GET', '/v1/todos?due=today', { token: plain.token });
      expect(today.body.data.map((x: { title: string }) => x.title)).toEqual([]);
      // With a zone of their own, the profile's no longer counts.
      expect((await t.api('PATCH', `/v1/members/${plain.id}`, { token: plain.token, body: { tz: 'UTC' } })).status).toBe(200);
      const own = await run('/todo', 'add Breathe due:today', 'U0ZED');
      expect(own.body.text).toBe(`Added todo "Breathe" (medium, due ${todayIn('UTC')}).`);
    } finally {
      fake.handle('users.info', (call) => ({ body: { ok: true, user: { id: call.body.user, tz: 'UTC', profile: {} } } }));
    }
  });

  it('answers a todo the operation refuses with its field errors, and adds nothing', async () => {
    const title = 'x'.repeat(301);
    const v1 = await t.api('POST', '/v1/todos', { body: { title } });
    expect(v1.status).toBe(422);
    const reply = await run('/todo', `add ${title}`);
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.body.text).toBe(v1.body.user_message);
    expect(reply.body.text).toBe('title must be at most 300 characters.');
    expect(await db().selectFrom('todos').select('id').where('title', '=', title).execute()).toEqual([]);
  });

  it('lists only open todos due this week, each with a Done button', async () => {
    const today = todayIn(TZ);
    const later = format(addDays(new TZDate(Date.now(), TZ), 10), 'yyyy-MM-dd');
    const open = await t.api('POST', '/v1/todos', { body: { title: 'Due today', due_on: today } });
    const farOff = await t.api('POST', '/v1/todos', { body: { title: 'Due later', due_on: later } });
    const closed = await t.api('POST', '/v1/todos', { body: { title: 'Already done', due_on: today } });
    await t.api('POST', `/v1/todos/${closed.body.id}/done`);
    const list = (await t.api('GET', '/v1/todos?due=week&done=false')).body.data as { id: string }[];
    expect(list.map((x) => x.id)).toContain(open.body.id);

    const reply = await run('/todo', '');
    expect(reply.body.response_type).toBe('ephemeral');
    const shown = buttons(reply.body.blocks);
    expect(shown).toEqual(list.map((todo) => expect.objectContaining({ action_id: 'todo_done', value: todo.id })));
    expect(shown.map((b) => b.value)).not.toContain(farOff.body.id);
    expect(shown.map((b) => b.value)).not.toContain(closed.body.id);
  });

  it('keeps a long list inside Slack’s limits and says how many it left out', async () => {
    const many = await linkedMember('Many', 'U0MANY', 'UTC');
    const due_on = todayIn('UTC');
    for (let i = 0; i < 45; i++) {
      expect((await t.api('POST', '/v1/todos', { token: many.token, body: { title: `Chore ${i} ${'&'.repeat(250)}`, due_on } })).status).toBe(201);
    }
    const reply = await run('/todo', '', 'U0MANY');
    expectWithinSlackLimits(reply.body);
    // Each title escapes to 1,250 characters: fewer than the 40 a list may show fit in the
    // 10,000 characters of text a message's blocks are kept to (Slack refuses ~12,000).
    const shown = buttons(reply.body.blocks).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(40);
    expect(JSON.stringify(reply.body.blocks)).toContain(`…and ${45 - shown} more.`);
    expect(blocksTextLength(reply.body.blocks)).toBeLessThanOrEqual(10_000);
    expect(reply.body.text.length).toBeLessThanOrEqual(3000);
  });

  it('completes a todo from the Done button of an ephemeral list and replaces the list', async () => {
    const created = await t.api('POST', '/v1/todos', { body: { title: 'Water plants', due_on: todayIn(TZ) } });
    expect(created.status).toBe(201);
    const response_url = fake.responseUrl();
    const res = await slack.click({ action_id: 'todo_done', value: created.body.id, response_url, user_id: USER });
    expect(res.status).toBe(200);
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    expect(reply.body.replace_original).toBe(true);
    expect(reply.body.text).toContain('Done: Water plants');
    const left = buttons(reply.body.blocks).map((b) => b.value);
    expect(left).not.toContain(created.body.id);
    // The rest of the list is still there.
    expect(left.length).toBeGreaterThan(0);
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
    // A replaced block gets a new block_id, as Slack asks.
    expect(reply.body.blocks[1].block_id).not.toBe(`todo:${created.body.id}`);
    expect(buttons(reply.body.blocks)).toEqual([]);
    const done = await t.api('GET', '/v1/todos?done=true');
    expect(done.body.data.map((x: { id: string }) => x.id)).toContain(created.body.id);
  });

  it('completes a todo by id, and answers an unknown one with the /v1 message', async () => {
    const created = await t.api('POST', '/v1/todos', { body: { title: 'File taxes' } });
    const reply = await run('/todo', `done ${created.body.id}`);
    expect(reply.body.text).toBe('Done: File taxes');
    const done = await t.api('GET', '/v1/todos?done=true');
    expect(done.body.data.map((x: { id: string }) => x.id)).toContain(created.body.id);
    const v1 = await t.api('POST', '/v1/todos/todo_nope/done');
    expect(v1.status).toBe(404);
    expect((await run('/todo', 'done todo_nope')).body).toMatchObject({ response_type: 'ephemeral', text: v1.body.user_message });
  });

  it('never completes another member’s todo', async () => {
    const other = await linkedMember('Olga', 'U0OLGA');
    const hers = await t.api('POST', '/v1/todos', { token: other.token, body: { title: 'Hers' } });
    const v1 = await t.api('POST', `/v1/todos/${hers.body.id}/done`);
    expect(v1.status).toBe(404);
    expect((await run('/todo', `done ${hers.body.id}`)).body.text).toBe(v1.body.user_message);
    expect((await t.api('GET', '/v1/todos?done=false', { token: other.token })).body.data.map((x: { id: string }) => x.id)).toContain(hers.body.id);
  });

  it('lets a viewer read but not add', async () => {
    await member(t, { name: 'Vic', role: 'viewer', slack_user_id: 'U0VIC' });
    expect((await run('/todo', '', 'U0VIC')).body.text).toBe('Nothing open is due this week.');
    expect((await run('/todo', 'add nope', 'U0VIC')).body).toMatchObject({ response_type: 'ephemeral', text: 'Viewers can read but not change anything.' });
    expect(await db().selectFrom('todos').select('id').where('title', '=', 'nope').execute()).toEqual([]);
  });
});

describe('/card', () => {
  let ref: string;
  beforeAll(async () => {
    await t.api('POST', '/v1/boards', { body: { name: 'Ops', slug: 'ops', ref_prefix: 'OPS' } });
    ref = (await t.api('POST', '/v1/cards', { body: { board: 'ops', title: 'Rotate keys', criteria: ['staging', 'prod'] } })).body.ref;
  });

  it('shows a card and moves it, statuses read leniently', async () => {
    const shown = await run('/card', ref);
    expect(shown.body.text).toBe(`${ref} Rotate keys (Backlog)`);
    expect(JSON.stringify(shown.body.blocks)).toContain('*Criteria done*\\n0 / 2');
    const moved = await run('/card', `${ref.toLowerCase()} move in-progress`);
    expect(moved.body.text).toBe(`Moved ${ref} to In progress. ${ref} Rotate keys (In progress)`);
    expect((await t.api('GET', `/v1/cards/${ref}`)).body.workflow_status).toBe('in_progress');
  });

  it('moves a card to done on a gated board for a Slack user (a human), where an agent is refused', async () => {
    expect((await t.api('POST', '/v1/boards', { body: { name: 'Release', slug: 'rel', ref_prefix: 'REL', gated: true } })).status).toBe(201);
    const card = await t.api('POST', '/v1/cards', { body: { board: 'rel', title: 'Ship 1.0' } });
    expect(card.body.gated).toBe(true);
    const agent = await t.api('POST', '/v1/tokens', { body: { name: 'bot', scopes: ['read', 'write'], agent: true } });
    const refused = await t.api('PATCH', `/v1/cards/${card.body.ref}`, { token: agent.body.token, body: { workflow_status: 'done' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('gated_move_requires_human');

    const moved = await run('/card', `${card.body.ref} move done`);
    expect(moved.body.text).toBe(`Moved ${card.body.ref} to Done. ${card.body.ref} Ship 1.0 (Done)`);
    expect(JSON.stringify(moved.body.blocks)).toContain('*Gated*');
    expect((await t.api('GET', `/v1/cards/${card.body.ref}`)).body.workflow_status).toBe('done');
  });

  it("answers an unknown card with the /v1 error's user_message, and a viewer's move with the role error", async () => {
    const v1 = await t.api('GET', '/v1/cards/OPS-999');
    expect(v1.status).toBe(404);
    expect((await run('/card', 'OPS-999')).body).toMatchObject({ response_type: 'ephemeral', text: v1.body.user_message });
    expect((await run('/card', 'OPS-999 move done')).body.text).toBe(v1.body.user_message);
    await member(t, { name: 'Val', role: 'viewer', slack_user_id: 'U0VAL' });
    expect((await run('/card', ref, 'U0VAL')).body.text).toContain(ref);
    expect((await run('/card', `${ref} move backlog`, 'U0VAL')).body.text).toBe('Viewers can read but not change anything.');
    expect((await t.api('GET', `/v1/cards/${ref}`)).body.workflow_status).toBe('in_progress');
  });
});

describe('/snippet', () => {
  it('shows a snippet by slug or id: name, type, version, body and public link', async () => {
    const created = await t.api('POST', '/v1/snippets', { body: { type: 'sql', name: 'Active users', body: 'select 1 where a < b;', tags: ['ops'] } });
    expect(created.status).toBe(201);
    const updated = await t.api('PATCH', `/v1/snippets/${created.body.id}`, { body: { body: 'select 2 where a < b;' } });
    expect(updated.body.version).toBe(2);
    for (const key of [created.body.slug, created.body.id]) {
      const reply = await run('/snippet', key);
      expect(reply.body.response_type).toBe('ephemeral');
      expect(reply.body.text).toBe(`Active users (${created.body.slug}, v2)`);
      const json = JSON.stringify(reply.body.blocks);
      expect(reply.body.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Active users' } });
      expect(json).toContain('sql · v2');
      expect(json).toContain('```\\nselect 2 where a &lt; b;\\n```');
      expect(json).toContain(`<${updated.body.public_url}|Public link>`);
      expect(json).not.toContain('more lines');
    }
  });

  it('cuts a long body to fit one section and says how much is left at the public link', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} <${'x'.repeat(20)}>`);
    const created = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Long log', body: lines.join('\n') } });
    expect(created.status).toBe(201);
    const reply = await run('/snippet', created.body.slug);
    expectWithinSlackLimits(reply.body);
    const code = reply.body.blocks.find((b: any) => b.type === 'section').text.text as string;
    const shownLines = code.split('\n').length - 2;
    expect(shownLines).toBeGreaterThan(50);
    expect(code).toContain('line 0 &lt;');
    expect(code.endsWith('\n```')).toBe(true);
    expect(JSON.stringify(reply.body.blocks)).toContain(`…and ${400 - shownLines} more lines, in full at the public link.`);
  });

  it('answers an unknown snippet with the /v1 message', async () => {
    const v1 = await t.api('GET', '/v1/snippets/snp_nope');
    expect(v1.status).toBe(404);
    expect((await run('/snippet', 'snp_nope')).body).toMatchObject({ response_type: 'ephemeral', text: v1.body.user_message });
    const slug = await t.api('GET', '/v1/snippets/no-such-slug');
    expect(slug.body.user_message).toBe('No snippet with the identifier "no-such-slug".');
    expect((await run('/snippet', 'no-such-slug')).body.text).toBe(slug.body.user_message);
  });
});
