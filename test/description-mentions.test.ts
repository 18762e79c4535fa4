import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { consumeEvents } from '../jobs/event-consumers.js';
import { sendNotificationDms } from '../jobs/notification-dms.js';
import { notificationsConsumer } from '../src/domain/notifications.js';
import { board, memberWithToken, type Someone } from './helpers/factories.js';
import { dmChannelOf, startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { jobDeps, slackEnv } from './helpers/jobs.js';
import { createSecondOrg, type OtherOrg } from './helpers/second-org.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * Mentions in a card's description (contract §11): stored as `@mem_…` as a comment's are, on
 * creation and on the PATCH, and a member newly mentioned gets the `mentioned` notification
 * under the same rules as a comment's mention (never the one who wrote it, never someone
 * outside the organization, never with the kind turned off, never twice for one mention).
 */

let fake: FakeSlack;
let t: TestServer;
let now = new Date('2026-06-01T10:00:00Z');
const later = (seconds: number) => {
  now = new Date(now.getTime() + seconds * 1000);
};

let ada: Someone;
let bob: Someone;
let cy: Someone;
let other: OtherOrg;
let slug: string;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  ada = await memberWithToken(t, { name: 'Ada Lovelace', slack_user_id: 'U0ADA', tz: 'UTC' });
  bob = await memberWithToken(t, { name: 'Bob', slack_user_id: 'U0BOB', tz: 'UTC' });
  cy = await memberWithToken(t, { name: 'Cy Quiet', slack_user_id: 'U0CY', tz: 'UTC' });
  other = await createSecondOrg(t.server.db.db);
  slug = (await board(t, { name: 'Described', slug: 'dsc', ref_prefix: 'DSC' })).slug;
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

async function ok(method: string, path: string, body?: unknown, as?: string) {
  const res = await t.api(method, path, { body, token: as });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

/** The notifier's consumer over the new events. */
const pass = () => consumeEvents(jobDeps(t, () => now), notificationsConsumer);
/** The `mentioned` notifications of a member about a card. */
const mentions = (memberId: string, cardId: string) =>
  t.server.db.db.selectFrom('notifications').selectAll().where('member_id', '=', memberId).where('kind', '=', 'mentioned').where('card_id', '=', cardId).execute();

describe('mentions in a card’s description', () => {
  it('are stored as @mem_… on creation and on the PATCH, as a comment’s are (unknown names, e-mail addresses and code as written)', async () => {
    const made = await ok('POST', '/v1/cards', { board: slug, title: 'Plan', description: `@Ada Lovelace and @bob, see @${cy.id}; not @nobody, not ada@example.com, not \`@Bob\`` });
    expect(made.description).toBe(`@${ada.id} and @${bob.id}, see @${cy.id}; not @nobody, not ada@example.com, not \`@Bob\``);
    expect((await ok('GET', `/v1/cards/${made.ref}`)).description).toBe(made.description);
    const patched = await ok('PATCH', `/v1/cards/${made.ref}`, { description: 'over to @ada', workflow_status: 'in_progress' });
    expect(patched.description).toBe(`over to @${ada.id}`);
    const history = (await ok('GET', `/v1/cards/${made.ref}/activity?type=card.moved`)).data;
    expect(history[0].changes.description).toEqual([made.description, `over to @${ada.id}`]);
    expect((await ok('PATCH', `/v1/cards/${made.ref}`, { description: null })).description).toBeNull();
  });

  it('tell a member newly mentioned: not the author, not someone of another organization, not with the kind off', async () => {
    await pass();
    expect((await t.api('PATCH', `/v1/members/${cy.id}`, { token: cy.token, body: { notifications: { mentioned: false } } })).status).toBe(200);
    // Bob writes it, mentioning himself, Ada, Cy (kind off) and a member of another organization.
    const made = await ok('POST', '/v1/cards', { board: slug, title: 'Mentions', description: `@ada, @bob, @${cy.id} and @${other.memberId}: please look` }, bob.token);
    expect(made.description).toBe(`@${ada.id}, @${bob.id}, @${cy.id} and @${other.memberId}: please look`);
    await pass();
    const toAda = await mentions(ada.id, made.id);
    expect(toAda).toHaveLength(1);
    expect(toAda[0]).toMatchObject({ card_ref: made.ref, actor_name: 'Bob' });
    // Its excerpt shows names (of this organization's members only), not ids.
    expect(toAda[0]!.detail).toBe(`mentioned you in the description: @Ada Lovelace, @Bob, @Cy Quiet and @${other.memberId}: please look`);
    expect(await mentions(bob.id, made.id)).toHaveLength(0);
    expect(await mentions(cy.id, made.id)).toHaveLength(0);
    expect(await mentions(other.memberId, made.id)).toHaveLength(0);

    // The DM a minute later says where she was mentioned.
    later(61);
    await sendNotificationDms(jobDeps(t, () => now));
    const dm = fake.callsTo('chat.postMessage').filter((c) => c.body.channel === dmChannelOf('U0ADA') && c.body.metadata?.event_type === 'tack_notifications');
    expect(dm).toHaveLength(1);
    expect(JSON.stringify(dm[0]!.body.blocks)).toContain('mentioned you in the description');
    expect((await t.api('PATCH', `/v1/members/${cy.id}`, { token: cy.token, body: { notifications: { mentioned: true } } })).status).toBe(200);
  });

  it('tell only those newly mentioned when the description is edited: an edit without a new mention tells nobody again', async () => {
    const made = await ok('POST', '/v1/cards', { board: slug, title: 'Edited', description: 'for @ada' }, bob.token);
    await pass();
    expect(await mentions(ada.id, made.id)).toHaveLength(1);

    // The text around the mention changes, and the title: Ada was already mentioned.
    await ok('PATCH', `/v1/cards/${made.ref}`, { description: 'for @ada, please', title: 'Edited again' }, bob.token);
    await ok('PATCH', `/v1/cards/${made.ref}`, { title: 'Edited thrice' }, bob.token);
    await pass();
    expect(await mentions(ada.id, made.id)).toHaveLength(1);

    // Cy is new in the description (through a move): Cy is told, Ada not again.
    const moved = await ok('PATCH', `/v1/cards/${made.ref}`, { description: 'for @ada and @Cy Quiet', workflow_status: 'in_review' }, bob.token);
    expect(moved.description).toBe(`for @${ada.id} and @${cy.id}`);
    await pass();
    expect(await mentions(ada.id, made.id)).toHaveLength(1);
    const toCy = await mentions(cy.id, made.id);
    expect(toCy).toHaveLength(1);
    expect(toCy[0]!.detail).toMatch(/^mentioned you in the description: /);

    // Ada taken out and put back in one later edit is newly mentioned again; Cy, kept, is not.
    await ok('PATCH', `/v1/cards/${made.ref}`, { description: `for @${cy.id}` }, bob.token);
    await ok('PATCH', `/v1/cards/${made.ref}`, { description: `for @${cy.id} and @${ada.id}` }, bob.token);
    await pass();
    expect(await mentions(ada.id, made.id)).toHaveLength(2);
    expect(await mentions(cy.id, made.id)).toHaveLength(1);
  });

  it('Slack /card shows the description’s mentions as names, and a comment’s notification names them too', async () => {
    const made = await ok('POST', '/v1/cards', { board: slug, title: 'Slack view', description: `Over to @ada and @${other.memberId}` }, bob.token);
    const response_url = fake.responseUrl();
    const slack = slackClient(t.url, 'jobs-secret');
    expect((await slack.command({ command: '/card', text: made.ref, response_url, user_id: 'U0BOB' }, { timestamp: Math.floor(now.getTime() / 1000) })).status).toBe(200);
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    const text = JSON.stringify(reply.body.blocks);
    expect(text).toContain('Over to @Ada Lovelace and @');
    expect(text).not.toContain(ada.id);

    const comment = await ok('POST', `/v1/cards/${made.ref}/comments`, { body: 'thanks @Ada Lovelace' }, bob.token);
    expect(comment.body).toBe(`thanks @${ada.id}`);
    await pass();
    const details = (await mentions(ada.id, made.id)).map((n) => n.detail).sort();
    expect(details).toEqual(['mentioned you in the description: Over to @Ada Lovelace and @' + other.memberId, 'mentioned you: thanks @Ada Lovelace']);
  });

  it('a comment edit that keeps its body mentions nobody anew', async () => {
    const made = await ok('POST', '/v1/cards', { board: slug, title: 'Talk' }, bob.token);
    const comment = await ok('POST', `/v1/cards/${made.ref}/comments`, { body: 'hi @ada' }, bob.token);
    await pass();
    expect(await mentions(ada.id, made.id)).toHaveLength(1);
    later(1);
    await ok('PATCH', `/v1/cards/${made.ref}/comments/${comment.id}`, { body: 'hi @ada' }, bob.token);
    await ok('PATCH', `/v1/cards/${made.ref}/comments/${comment.id}`, { body: 'hi @ada and @bob' }, bob.token);
    await pass();
    expect(await mentions(ada.id, made.id)).toHaveLength(1);
    expect(await mentions(bob.id, made.id)).toHaveLength(0);
  });
});
