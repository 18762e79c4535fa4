import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { consumeEvents } from '../jobs/event-consumers.js';
import { CHANNEL_POSTS_CONSUMER, runChannelPosts, type ChannelPostDeps } from '../jobs/channel-posts.js';
import { claimPosts } from '../src/domain/slack-posts.js';
import { blocksTextLength } from '../src/slack/views/blocks.js';
import { board, card, memberWithToken } from './helpers/factories.js';
import { dmChannelOf, startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { jobDeps, slackEnv } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { waitFor } from './helpers/wait.js';

/**
 * Channel subscriptions to a board (contract §11): `/tack subscribe <board>` in a channel,
 * then one parent message per card, its later events in the parent's thread, the parent kept
 * current; exactly once when Slack is slow or a worker dies; one post a second per channel;
 * the subscription paused, and its subscriber told, when the bot is removed.
 */

const USER = 'U0SUBS';
let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;
let ownerId: string;
let now = new Date('2026-04-01T09:00:00Z');
const clock = () => now;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock });
  slack = slackClient(t.url, 'jobs-secret');
  ownerId = (await t.api('GET', '/v1/me')).body.member.id;
  expect((await t.api('PATCH', `/v1/members/${ownerId}`, { body: { slack_user_id: USER } })).status).toBe(200);
  // The consumer starts reading at the events of now: everything after this is heard.
  await consumeEvents({ db: t.server.db.db, clock }, CHANNEL_POSTS_CONSUMER);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clear());

/** The jobs' dependencies on the injected clock; waiting for the channel's pace moves it. */
function deps(overrides: Partial<ChannelPostDeps> = {}): ChannelPostDeps {
  return {
    ...jobDeps(t, clock),
    appUrl: 'http://tack.test',
    sleep: async (ms) => {
      now = new Date(now.getTime() + ms);
    },
    ...overrides,
  };
}

async function command(text: string, channel: string, user = USER): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  // Signed at the server's (injected) time, as Slack's requests are checked against it.
  const res = await slack.command({ command: '/tack', text, response_url, user_id: user, channel_id: channel }, { timestamp: Math.floor(now.getTime() / 1000) });
  expect(res.status).toBe(200);
  const path = new URL(response_url).pathname;
  return fake.waitFor((c) => c.path === path);
}

const posts = (channel: string) => fake.callsTo('chat.postMessage').filter((c) => c.body.channel === channel);
const parentsIn = (channel: string) => posts(channel).filter((c) => c.body.metadata?.event_type === 'tack_card_thread');
const repliesIn = (channel: string) => posts(channel).filter((c) => c.body.metadata?.event_type === 'tack_card_event');

async function subscribed(channel: string): Promise<{ slug: string }> {
  const b = await board(t, { name: `Board ${channel}`, slug: channel.toLowerCase(), ref_prefix: channel.slice(3, 8) });
  const reply = await command(`subscribe ${b.slug}`, channel);
  expect(reply.body.text).toContain(`subscribed to board ${b.slug}`);
  return { slug: b.slug };
}

describe('/tack subscribe, unsubscribe, subscriptions', () => {
  it('subscribes a channel to a board, lists it, and unsubscribes it', async () => {
    const b = await board(t, { name: 'Platform', slug: 'platform', ref_prefix: 'PLAT' });
    const reply = await command('subscribe platform', 'C0LIST');
    expect(reply.body.text).toBe('This channel is now subscribed to board platform: one message per card, what happens to it in its thread.');
    // The confirmation is posted in the channel by the bot: the proof it may post there.
    expect(posts('C0LIST').map((c) => c.body.text)[0]).toContain('subscribed this channel to board Platform (platform)');
    expect((await command('subscribe platform', 'C0LIST')).body.text).toContain('already subscribed');
    const list = await command('subscriptions', 'C0LIST');
    expect(JSON.stringify(list.body.blocks)).toContain('platform (Platform)');
    const rows = await t.server.db.db.selectFrom('slack_board_subscriptions').selectAll().where('channel_id', '=', 'C0LIST').execute();
    expect(rows.map((r) => [r.board_id, r.created_by])).toEqual([[b.id, ownerId]]);
    expect((await command('unsubscribe platform', 'C0LIST')).body.text).toBe('This channel no longer gets the card updates of board platform.');
    expect((await command('subscriptions', 'C0LIST')).body.text).toContain('subscribed to no board');
    expect((await command('unsubscribe platform', 'C0LIST')).body.text).toContain('not subscribed to the board platform');
  });

  it('refuses an unknown board, a viewer, and a channel the bot cannot post in, storing nothing', async () => {
    await board(t, { name: 'Refusals', slug: 'refusals', ref_prefix: 'REFU' });
    expect((await command('subscribe nope', 'C0REF')).body.text).toMatch(/board/i);
    await memberWithToken(t, { name: 'Vera', role: 'viewer', slack_user_id: 'U0VERA' });
    expect((await command('subscribe refusals', 'C0REF', 'U0VERA')).body.text).toMatch(/viewer|read-only|not allowed|cannot/i);
    fake.handleOnce('chat.postMessage', { body: { ok: false, error: 'not_in_channel' } });
    expect((await command('subscribe refusals', 'C0REF')).body.text).toContain('Invite @tack to the channel');
    expect(await t.server.db.db.selectFrom('slack_board_subscriptions').selectAll().where('channel_id', '=', 'C0REF').execute()).toEqual([]);
    expect((await command('subscribe', 'C0REF')).body.text).toContain('Which board?');
  });
});

describe('card threads', () => {
  it('post one parent per card, later events in its thread, and keep the parent current', async () => {
    const { slug } = await subscribed('C0THREAD');
    const c = await card(t, { board: slug, title: 'Login <!channel> & more' });
    await t.api('PATCH', `/v1/cards/${c.id}`, { body: { workflow_status: 'in_progress' } });
    await t.api('PATCH', `/v1/cards/${c.id}`, { body: { assignee_ids: [ownerId] } });
    await runChannelPosts(deps());

    const [parent, ...more] = parentsIn('C0THREAD');
    expect(more).toEqual([]);
    expect(parent!.body.text).toContain('Login &lt;!channel&gt; &amp; more');
    expect(parent!.body.thread_ts).toBeUndefined();
    const parentTs = parent!.response!.body && (parent!.response!.body as { ts: string }).ts;
    const replies = repliesIn('C0THREAD');
    expect(replies).toHaveLength(2);
    expect(replies.map((r) => r.body.thread_ts)).toEqual([parentTs, parentTs]);
    expect(replies[0]!.body.text).toContain('moved it from Backlog to In progress');
    // The parent now shows the card as it is: in progress, assigned (a mention of the linked member).
    const updates = fake.callsTo('chat.update').filter((u) => u.body.ts === parentTs);
    expect(updates.length).toBeGreaterThan(0);
    const last = JSON.stringify(updates.at(-1)!.body.blocks);
    expect(last).toContain('In progress');
    expect(last).toContain(`<@${USER}>`);

    // A later event joins the same thread; no second parent.
    fake.clear();
    await t.api('PATCH', `/v1/cards/${c.id}`, { body: { title: 'Login, renamed' } });
    await runChannelPosts(deps());
    expect(parentsIn('C0THREAD')).toEqual([]);
    expect(repliesIn('C0THREAD').map((r) => [r.body.thread_ts, r.body.text])).toEqual([[parentTs, 'Owner renamed it to “Login, renamed”'.replace('Owner', expect.any(String) as never)]].map(([ts]) => [ts, expect.stringContaining('renamed it to “Login, renamed”')]));
    expect(await t.server.db.db.selectFrom('slack_channel_queue').selectAll().where('channel_id', '=', 'C0THREAD').execute()).toEqual([]);

    // A comment's mention shows the member's name in the thread, not the stored @mem_….
    fake.clear();
    expect((await t.api('POST', `/v1/cards/${c.id}/comments`, { body: { body: `Over to @${ownerId} for review` } })).status).toBe(201);
    await runChannelPosts(deps());
    const [comment] = repliesIn('C0THREAD');
    const me = (await t.api('GET', '/v1/me')).body.member.name as string;
    expect(comment!.body.text).toContain(`commented: Over to @${me} for review`);
    expect(JSON.stringify(comment!.body.blocks)).not.toContain(ownerId);
  });

  it('never posts an event twice in a thread when Slack answers after 12 s', { timeout: 40_000 }, async () => {
    const { slug } = await subscribed('C0SLOW');
    const c = await card(t, { board: slug });
    await runChannelPosts(deps());
    expect(parentsIn('C0SLOW')).toHaveLength(1);
    fake.clear();
    await t.api('PATCH', `/v1/cards/${c.id}`, { body: { workflow_status: 'in_review' } });
    fake.delay('chat.postMessage', 12_000);
    try {
      // The client gives up at 10 s: the outcome is unknown, so the post is not sent again blind.
      const first = await runChannelPosts(deps());
      expect(first.failed).toBe(1);
      // Slack did post it, late.
      await waitFor('the slow reply to land in the thread', () => fake.messages('C0SLOW').some((m) => m.metadata?.event_type === 'tack_card_event'));
    } finally {
      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    }
    now = new Date(now.getTime() + 5 * 60_000);
    const second = await runChannelPosts(deps());
    expect(second.sent).toBe(1);
    expect(fake.callsTo('conversations.replies').length).toBeGreaterThan(0);
    expect(repliesIn('C0SLOW')).toHaveLength(1);
    expect(fake.messages('C0SLOW').filter((m) => m.metadata?.event_type === 'tack_card_event')).toHaveLength(1);
  });

  it('finds the reply of a worker killed after posting it, instead of posting it again', async () => {
    const { slug } = await subscribed('C0KILL');
    const c = await card(t, { board: slug });
    await runChannelPosts(deps());
    await t.api('PATCH', `/v1/cards/${c.id}`, { body: { workflow_status: 'done' } });
    await consumeEvents({ db: t.server.db.db, clock }, CHANNEL_POSTS_CONSUMER);
    const [queued] = await t.server.db.db.selectFrom('slack_channel_queue').selectAll().where('channel_id', '=', 'C0KILL').execute();
    const orgId = queued!.org_id;
    const subject = `${queued!.subscription_id}:${queued!.card_id}`;
    // The dead worker: claimed the post, posted it with its marker in the thread, died before recording it.
    const [claim] = await claimPosts(t.server.db.db, 'card_event', orgId, [{ subjectId: subject, period: queued!.event_id }], now);
    expect(claim).toBeDefined();
    const parentTs = fake.messages('C0KILL').find((m) => m.metadata?.event_type === 'tack_card_thread')!.ts;
    const d = deps();
    await d.slack!.chat.postMessage({
      channel: 'C0KILL',
      thread_ts: parentTs,
      text: 'moved it',
      metadata: { event_type: 'tack_card_event', event_payload: { subscription_id: queued!.subscription_id, event_id: queued!.event_id } },
    });
    fake.clear();
    // Its lease runs out; the next worker checks the thread first.
    now = new Date(now.getTime() + 11 * 60_000);
    const result = await runChannelPosts(deps());
    expect(result.sent).toBe(1);
    expect(repliesIn('C0KILL')).toEqual([]);
    expect(fake.messages('C0KILL').filter((m) => m.metadata?.event_type === 'tack_card_event')).toHaveLength(1);
    const record = await t.server.db.db.selectFrom('slack_posts').selectAll().where('kind', '=', 'card_event').where('subject_id', '=', subject).executeTakeFirstOrThrow();
    expect(record.state).toBe('sent');
  });

  it('spaces a burst at one post a second in a channel, dropping none', { timeout: 30_000 }, async () => {
    const { slug } = await subscribed('C0PACE');
    const at: number[] = [];
    fake.handle('chat.postMessage', (call) => {
      if (call.body.channel === 'C0PACE') at.push(Date.now());
      return fake.answerAsSlack(call);
    });
    try {
      for (let i = 0; i < 5; i++) await card(t, { board: slug, title: `Burst ${i}` });
      // The real clock and real waits: what Slack would see.
      await runChannelPosts({ ...jobDeps(t, () => new Date()), appUrl: 'http://tack.test' });
    } finally {
      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    }
    expect(parentsIn('C0PACE')).toHaveLength(5);
    const gaps = at.slice(1).map((v, i) => v - at[i]!);
    // A second apart as reserved; what the fake sees of that varies by the request's own latency.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(850);
    expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual(3_900);
  });

  it('pauses the subscription and tells its subscriber by DM when the bot is removed from the channel', async () => {
    const { slug } = await subscribed('C0GONE');
    fake.handle('chat.postMessage', (call) => (call.body.channel === 'C0GONE' ? { body: { ok: false, error: 'not_in_channel' } } : fake.answerAsSlack(call)));
    try {
      await card(t, { board: slug });
      await runChannelPosts(deps());
      const sub = await t.server.db.db.selectFrom('slack_board_subscriptions').selectAll().where('channel_id', '=', 'C0GONE').executeTakeFirstOrThrow();
      expect(sub.paused_reason).toBe('not_in_channel');
      const dm = posts(dmChannelOf(USER));
      expect(dm).toHaveLength(1);
      expect(dm[0]!.body.text).toContain(`I paused the card updates of board ${slug} in channel C0GONE`);
      // Paused: nothing more is tried, and nobody is told twice.
      fake.clear();
      await card(t, { board: slug });
      await runChannelPosts(deps());
      expect(posts('C0GONE')).toEqual([]);
      expect(posts(dmChannelOf(USER))).toEqual([]);
      expect((await command('subscriptions', 'C0GONE')).body.blocks[0].text.text).toContain('paused: not_in_channel');
    } finally {
      fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    }
    // Subscribing again resumes it, and what was owed goes out.
    expect((await command(`subscribe ${slug}`, 'C0GONE')).body.text).toContain('subscribed again');
    fake.clear();
    await runChannelPosts(deps());
    expect(parentsIn('C0GONE')).toHaveLength(1);
  });

  it('keeps within Block Kit limits with hostile titles and names', async () => {
    const { slug } = await subscribed('C0HOSTILE');
    const title = `<!here> *bold* ${'&<>'.repeat(60)} ${'𝒳'.repeat(80)}`.slice(0, 300);
    const c = await card(t, { board: slug, title });
    await runChannelPosts(deps());
    await t.api('PATCH', `/v1/cards/${c.id}`, { body: { title: `${'>'.repeat(299)}!` } });
    await runChannelPosts(deps());
    const all = [...posts('C0HOSTILE'), ...fake.callsTo('chat.update').filter((u) => u.body.channel === 'C0HOSTILE')];
    expect(all.length).toBeGreaterThanOrEqual(3);
    for (const call of all) {
      const blocks = call.body.blocks as any[];
      expect(blocks.length).toBeLessThanOrEqual(50);
      expect(blocksTextLength(blocks)).toBeLessThan(10_000);
      for (const b of blocks) {
        if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(3000);
        for (const f of b.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(2000);
      }
      expect(JSON.stringify(blocks)).not.toContain('<!here>');
      expect(call.body.text).not.toContain('<!here>');
    }
  });
});
