import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { consumeEvents } from '../jobs/event-consumers.js';
import { sendNotificationDms } from '../jobs/notification-dms.js';
import { insertEvents } from '../src/domain/events.js';
import { notificationsConsumer } from '../src/domain/notifications.js';
import { claimPosts, LEASE_MS } from '../src/domain/slack-posts.js';
import { blocksTextLength, BLOCKS_TEXT_BUDGET, MAX_BLOCKS } from '../src/slack/views/blocks.js';
import { MOVE_TO_DONE_ACTION } from '../src/slack/views/notifications.js';
import { dmChannelOf, startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, jobDeps, slackEnv, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { sleep, waitFor } from './helpers/wait.js';

/**
 * Personal notifications by DM (contract §11) against the fake Slack: each kind, the
 * never-rules, grouping within a minute, exactly once when Slack is slow or a worker died
 * mid-post, the Move to done button, settings off, and App Home's unread count.
 */

let fake: FakeSlack;
let t: TestServer;
let ann: TestMember;
let bob: TestMember;
let vic: TestMember;
let ownerId: string;
let orgId: string;
let agentToken: string;
let now = new Date('2026-05-04T10:00:00Z');
const later = (seconds: number) => {
  now = new Date(now.getTime() + seconds * 1000);
};

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  ann = await addMember(t, { name: 'Ann', slack_user_id: 'U0ANN', tz: 'UTC' });
  bob = await addMember(t, { name: 'Bob', slack_user_id: 'U0BOB', tz: 'UTC' });
  vic = await addMember(t, { name: 'Vic', slack_user_id: 'U0VIC', tz: 'UTC', role: 'viewer' });
  const me = await t.api('GET', '/v1/me');
  ownerId = me.body.member.id;
  orgId = me.body.org.id;
  expect((await t.api('PATCH', `/v1/members/${ownerId}`, { body: { slack_user_id: 'U0OWNER', tz: 'UTC' } })).status).toBe(200);
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG', gated: true } })).status).toBe(201);
  const agent = await t.api('POST', '/v1/tokens', { body: { name: 'bot', scopes: ['read', 'write'], agent: true } });
  expect(agent.status).toBe(201);
  agentToken = agent.body.token;
  await pass();
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.clear();
  fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
});

const deps = () => jobDeps(t, () => now);
/** What the notifier does once: consume the new events, send what is due. */
async function pass(d = deps()) {
  await consumeEvents(d, notificationsConsumer);
  return sendNotificationDms(d);
}
/** The notification DMs posted to a Slack user (marked tack_notifications). */
const dms = (user: string) => fake.callsTo('chat.postMessage').filter((c) => c.body.channel === dmChannelOf(user) && c.body.metadata?.event_type === 'tack_notifications');
const allDms = () => fake.callsTo('chat.postMessage').filter((c) => c.body.metadata?.event_type === 'tack_notifications');
const rowsOf = (memberId: string) => t.server.db.db.selectFrom('notifications').selectAll().where('member_id', '=', memberId).orderBy('created_at').execute();

async function newCard(body: Record<string, unknown>, token?: string) {
  const res = await t.api('POST', '/v1/cards', { token, body: { board: 'eng', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; ref: string };
}

describe('personal notifications', () => {
  it('assigned: each new assignee gets one DM a minute later; the one who assigned gets none', async () => {
    const card = await newCard({ title: 'Ship the release', assignee_ids: [ann.id, bob.id, ownerId] });
    await pass();
    expect(allDms()).toHaveLength(0); // grouped: nothing before the minute is up
    later(61);
    expect(await pass()).toMatchObject({ sent: 2, failed: 0 });
    expect(dms('U0ANN')).toHaveLength(1);
    expect(dms('U0BOB')).toHaveLength(1);
    expect(dms('U0OWNER')).toHaveLength(0);
    expect(JSON.stringify(dms('U0ANN')[0]!.body.blocks)).toContain(card.ref);
    later(61);
    expect(await pass()).toMatchObject({ sent: 0 });
    expect(allDms()).toHaveLength(2);
  });

  it('card_activity and grouping: moves and new assignments within a minute make one DM', async () => {
    const card = await newCard({ title: 'Group me', assignee_ids: [ann.id] });
    for (const status of ['in_progress', 'in_review']) {
      expect((await t.api('PATCH', `/v1/cards/${card.id}`, { body: { workflow_status: status } })).status).toBe(200);
      later(10);
    }
    await newCard({ title: 'Another', assignee_ids: [ann.id] });
    later(61);
    await pass();
    expect(dms('U0ANN')).toHaveLength(1);
    const text = JSON.stringify(dms('U0ANN')[0]!.body.blocks);
    expect(text).toContain('moved it to in review');
    expect(text).toContain('Another');
    // The one who moved it (the owner, not assigned) hears nothing; Ann herself moving it tells nobody else here.
    expect(dms('U0OWNER')).toHaveLength(0);
  });

  it('never to the one who made the change: assigning yourself tells nobody', async () => {
    await newCard({ title: 'Mine', assignee_ids: [ann.id] }, ann.token);
    later(61);
    await pass();
    expect(allDms()).toHaveLength(0);
  });

  it('mentioned: a comment event with @mem_ tells that member (in the organization only), and the assignees of activity', async () => {
    const card = await newCard({ title: 'Discuss', assignee_ids: [bob.id] });
    later(61);
    await pass();
    fake.clear();
    const ctx = { db: t.server.db.db, clock: () => now, principal: { orgId, memberId: ownerId, tokenId: null, role: 'owner' as const, scopes: ['read', 'write'] as const, agent: false, face: 'web' as const } };
    const body = `Hey @${ann.id}, see this. Also @mem_0000000000000000 <!channel>`;
    await insertEvents(ctx, [
      {
        type: 'comment.created',
        subject: { type: 'comment', id: 'cmt_test1' },
        snapshot: { data: {}, ref: card.ref, cardId: card.id, audience: 'org', memberId: null },
        changes: {},
        data: { id: 'cmt_test1', card_id: card.id, author: { member_id: ownerId, name: 'Owner', agent: false }, body, created_at: now.toISOString(), updated_at: now.toISOString() },
      },
    ]);
    later(61);
    await pass();
    expect(dms('U0ANN')).toHaveLength(1);
    expect(JSON.stringify(dms('U0ANN')[0]!.body.blocks)).toContain('mentioned you');
    expect(JSON.stringify(dms('U0ANN')[0]!.body.blocks)).not.toContain('<!channel>');
    expect(dms('U0BOB')).toHaveLength(1);
    expect(JSON.stringify(dms('U0BOB')[0]!.body.blocks)).toContain('commented');
  });

  it('never for a personal todo, nor to a member of the card who turned the kind off', async () => {
    expect((await t.api('POST', '/v1/todos', { token: ann.token, body: { title: 'Private' } })).status).toBe(201);
    expect((await t.api('PATCH', `/v1/members/${bob.id}`, { token: bob.token, body: { notifications: { assigned: false } } })).status).toBe(200);
    const me = await t.api('GET', '/v1/me', { token: bob.token });
    expect(me.body.member.notifications).toEqual({ assigned: false, mentioned: true, card_activity: true, agent_requests: true });
    await newCard({ title: 'Not for Bob', assignee_ids: [bob.id] });
    later(61);
    await pass();
    expect(allDms()).toHaveLength(0);
    expect((await t.api('PATCH', `/v1/members/${bob.id}`, { token: bob.token, body: { notifications: { assigned: true } } })).status).toBe(200);
  });

  it('agent_requests: a refused move to done asks the assignee, whose Move to done moves it as a human; a viewer is refused', async () => {
    const card = await newCard({ title: 'Agent wants done', assignee_ids: [ann.id] });
    later(61);
    await pass();
    fake.clear();
    const refused = await t.api('PATCH', `/v1/cards/${card.id}`, { token: agentToken, body: { workflow_status: 'done' } });
    expect(refused.status).toBe(403);
    later(61);
    await pass();
    expect(dms('U0ANN')).toHaveLength(1);
    const posted = dms('U0ANN')[0]!;
    const button = (posted.body.blocks as any[]).find((b) => b.accessory?.action_id === MOVE_TO_DONE_ACTION);
    expect(button).toBeDefined();
    const slack = slackClient(t.url, 'jobs-secret');
    const signed = { timestamp: Math.floor(now.getTime() / 1000) };
    const message = fake.messages(dmChannelOf('U0ANN')).at(-1)!;
    // A viewer clicking it (had they the message) is refused by moveCard.
    const viewerClick = await slack.click({ user_id: 'U0VIC', action_id: MOVE_TO_DONE_ACTION, value: button.accessory.value, block_id: button.block_id, response_url: fake.responseUrl(), channel_id: dmChannelOf('U0ANN'), message: { ts: message.ts, text: message.text, blocks: message.blocks } }, signed);
    expect(viewerClick.status).toBe(200);
    await fake.waitFor((c) => c.method === 'response' && /Not moved/.test(JSON.stringify(c.body)));
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.workflow_status).not.toBe('done');
    const click = await slack.click({ user_id: 'U0ANN', action_id: MOVE_TO_DONE_ACTION, value: button.accessory.value, block_id: button.block_id, response_url: fake.responseUrl(), channel_id: dmChannelOf('U0ANN'), message: { ts: message.ts, text: message.text, blocks: message.blocks } }, signed);
    expect(click.status).toBe(200);
    await waitFor('the card moved to done', async () => (await t.api('GET', `/v1/cards/${card.id}`)).body.workflow_status === 'done');
    await fake.waitFor((c) => c.method === 'chat.update' && JSON.stringify(c.body.blocks).includes('moved'));
    const moved = await t.api('GET', `/v1/events?subject=${card.id}&type=card.moved`);
    expect(moved.body.data[0].actor).toMatchObject({ member_id: ann.id, agent: false, face: 'slack' });
    // Read once clicked.
    expect((await rowsOf(ann.id)).find((r) => r.kind === 'agent_requests')!.read_at).not.toBeNull();
  });

  it("nobody assigned: the agent's request goes to the board's creator", async () => {
    const card = await newCard({ title: 'Unassigned' });
    const refused = await t.api('PATCH', `/v1/cards/${card.id}`, { token: agentToken, body: { workflow_status: 'done' } });
    expect(refused.status).toBe(403);
    later(61);
    await pass();
    expect(dms('U0OWNER')).toHaveLength(1);
  });

  it('App Home shows the unread count and the latest ten, and opening it marks them read', async () => {
    await newCard({ title: 'For Home', assignee_ids: [bob.id] });
    await pass();
    const unreadBefore = (await rowsOf(bob.id)).filter((r) => r.read_at === null).length;
    expect(unreadBefore).toBeGreaterThan(0);
    const slack = slackClient(t.url, 'jobs-secret');
    const signed = { timestamp: Math.floor(now.getTime() / 1000) };
    await slack.event({ type: 'app_home_opened', user: 'U0BOB', channel: 'D0BOB', tab: 'home' }, signed);
    const publish = await fake.waitFor((c) => c.method === 'views.publish' && c.body.user_id === 'U0BOB');
    expect(JSON.stringify(publish.body.view)).toContain(`${unreadBefore} unread`);
    await waitFor('read', async () => (await rowsOf(bob.id)).every((r) => r.read_at !== null));
  });

  it('hostile names and titles stay within Block Kit limits', async () => {
    const title = `<!channel> *${'x'.repeat(270)}`;
    for (let i = 0; i < 30; i++) await newCard({ title: `${title}${i}`, assignee_ids: [ann.id] });
    later(61);
    await pass();
    const dm = dms('U0ANN')[0]!;
    expect((dm.body.blocks as unknown[]).length).toBeLessThanOrEqual(MAX_BLOCKS);
    expect(blocksTextLength(dm.body.blocks)).toBeLessThanOrEqual(BLOCKS_TEXT_BUDGET);
    expect(JSON.stringify(dm.body)).not.toContain('<!channel>');
    expect(String(dm.body.text).length).toBeLessThanOrEqual(3000);
  });
});

describe('exactly once', () => {
  beforeEach(async () => {
    // What earlier tests left pending goes out first.
    later(61);
    await pass();
    fake.clear();
  });
  it('a Slack that answers after 12 s: the post times out, and the next pass finds it instead of posting again', async () => {
    await newCard({ title: 'Slow Slack', assignee_ids: [ann.id] });
    // Slack keeps the message at once and answers 12 s later, after the client (10 s) gave up.
    fake.handle('chat.postMessage', async (call) => {
      const answer = fake.answerAsSlack(call);
      await sleep(12_000);
      return answer;
    });
    later(61);
    expect(await pass()).toMatchObject({ sent: 0, failed: 1 });
    fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    later(LEASE_MS / 1000 + 60);
    expect(await pass()).toMatchObject({ sent: 1, failed: 0 });
    expect(dms('U0ANN')).toHaveLength(1);
    expect(fake.messages(dmChannelOf('U0ANN')).filter((m) => m.metadata?.event_type === 'tack_notifications' && JSON.stringify(m.blocks).includes('Slow Slack'))).toHaveLength(1);
    expect(fake.callsTo('conversations.history')).toHaveLength(1);
  }, 30_000);

  it('a worker killed after posting, before recording: the next claim finds the DM and does not post again', async () => {
    await newCard({ title: 'Crash', assignee_ids: [bob.id] });
    await consumeEvents(deps(), notificationsConsumer);
    later(61);
    // The dead worker: batched and claimed, posted with its marker, never recorded.
    const { batchDueNotifications, pendingBatches } = await import('../src/domain/notification-batches.js');
    await batchDueNotifications(t.server.db.db, orgId, now);
    const [batch] = (await pendingBatches(t.server.db.db, orgId, now)).filter((b) => b.memberId === bob.id);
    const [claim] = await claimPosts(t.server.db.db, 'notification_dm', orgId, [{ subjectId: bob.id, period: batch!.batch }], now);
    expect(claim).toBeDefined();
    await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ channel: dmChannelOf('U0BOB'), text: 'posted by the dead worker', metadata: { event_type: 'tack_notifications', event_payload: { member_id: bob.id, batch: batch!.batch } } }),
    });
    later(30);
    expect(await pass()).toMatchObject({ sent: 0 }); // its lease still lives
    later(LEASE_MS / 1000);
    expect(await pass()).toMatchObject({ sent: 1 });
    expect(fake.messages(dmChannelOf('U0BOB')).filter((m) => m.metadata?.event_type === 'tack_notifications' && m.metadata.event_payload.batch === batch!.batch)).toHaveLength(1);
    expect((await rowsOf(bob.id)).every((r) => r.delivered_at !== null)).toBe(true);
  });

  it('a burst of 500 assignments to 50 members makes 50 DMs, not 500', async () => {
    const people: TestMember[] = [];
    for (let i = 0; i < 50; i++) people.push(await addMember(t, { name: `P${i}`, slack_user_id: `U0P${String(i).padStart(3, '0')}`, tz: 'UTC' }));
    fake.clear();
    for (let c = 0; c < 100; c++) {
      const five = [0, 1, 2, 3, 4].map((k) => people[(c * 5 + k) % 50]!.id);
      await newCard({ title: `Burst ${c}`, assignee_ids: five });
    }
    later(61);
    expect(await pass()).toMatchObject({ sent: 50, failed: 0 });
    expect(allDms()).toHaveLength(50);
    const total = await t.server.db.db.selectFrom('notifications').select((eb) => eb.fn.countAll<string>().as('n')).where('member_id', 'in', people.map((p) => p.id)).executeTakeFirstOrThrow();
    expect(Number(total.n)).toBe(500);
  }, 120_000);
});
