import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { board, member } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { messageShortcutBody, slackClient, viewSubmissionBody } from './helpers/slack-request.js';

/**
 * The `create_card` message shortcut (contract §11): a modal with board, title from the
 * message, description with the message's permalink, assignees and status; submitted, it
 * creates the card as the Slack user's own member, and a refusal shows in the modal.
 */

const SECRET = 'card-shortcut-secret';
const OWNER = 'U0CARDOWNER';
let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;
let ownerId: string;
let assigneeId: string;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-card', SLACK_API_URL: fake.apiUrl });
  slack = slackClient(t.url, SECRET);
  ownerId = (await t.api('GET', '/v1/me')).body.member.id;
  expect((await t.api('PATCH', `/v1/members/${ownerId}`, { body: { slack_user_id: OWNER } })).status).toBe(200);
  assigneeId = (await member(t, { name: 'Ada', role: 'member', slack_user_id: 'U0ADA' })).id;
  await board(t, { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG', gated: true });
  await board(t, { name: 'Design', slug: 'design', ref_prefix: 'DES' });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clear());

async function openForm(text: string, user = OWNER): Promise<{ metadata: string; blocks: any[]; response_url: string }> {
  const trigger = fake.trigger();
  const response_url = fake.responseUrl();
  const res = await slack.interaction(messageShortcutBody({ user_id: user, channel_id: 'C0MSG', ts: '1712000000.000400', text, response_url, trigger_id: trigger, callback_id: 'create_card' }));
  expect(res.status).toBe(200);
  const open = await fake.waitFor((c) => c.method === 'views.open' && c.body.trigger_id === trigger);
  expect(open.body.view.callback_id).toBe('create_card');
  const update = await fake.waitFor((c) => c.method === 'views.update' && c.body.view?.callback_id === 'create_card', 10_000);
  return { metadata: update.body.view.private_metadata, blocks: update.body.view.blocks, response_url };
}

const blockOf = (blocks: any[], id: string) => blocks.find((b) => b.block_id === id);

describe('the create_card shortcut', () => {
  it('opens a modal prefilled from the message, and its submission creates the card as the member', async () => {
    const long = `Fix the <https://example.com|login> page & ${'x'.repeat(400)}`;
    const form = await openForm(long);
    expect(blockOf(form.blocks, 'board').element.options.map((o: any) => o.value)).toEqual(expect.arrayContaining(['eng', 'design']));
    const title = blockOf(form.blocks, 'title').element.initial_value as string;
    expect(title.startsWith('Fix the login page & xxx')).toBe(true);
    expect(title.length).toBeLessThanOrEqual(300);
    const description = blockOf(form.blocks, 'description').element.initial_value as string;
    expect(description).toContain('Fix the login (https://example.com) page & xxx');
    expect(description).toContain('https://example.slack.com/archives/C0MSG/p1712000000000400');
    expect(blockOf(form.blocks, 'workflow_status').element.initial_option.value).toBe('backlog');

    await slack.interaction(
      viewSubmissionBody({
        user_id: OWNER,
        callback_id: 'create_card',
        private_metadata: form.metadata,
        values: {
          board: { board: { type: 'static_select', selected_option: { value: 'design' } } },
          title: { title: { type: 'plain_text_input', value: 'Fix the login page' } },
          description: { description: { type: 'plain_text_input', value: description } },
          assignee_ids: { assignee_ids: { type: 'multi_users_select', selected_users: ['U0ADA'] } },
          workflow_status: { workflow_status: { type: 'static_select', selected_option: { value: 'in_progress' } } },
        },
      }),
    );
    const reply = await fake.waitFor((c) => c.path === new URL(form.response_url).pathname);
    expect(reply.body.text).toBe('Created DES-1 Fix the login page');
    const cards = (await t.api('GET', '/v1/cards?board=design')).body.data;
    expect(cards.map((c: any) => [c.title, c.workflow_status, c.assignee_ids])).toEqual([['Fix the login page', 'in_progress', [assigneeId]]]);
    // The description is the message and its permalink, as the modal offered it.
    expect(cards[0].description).toBe(description);
    // Made by the Slack user's member, through Slack.
    const events = (await t.api('GET', `/v1/events?subject=${cards[0].id}`)).body.data;
    expect(events[0].actor).toMatchObject({ member_id: ownerId, face: 'slack' });
  });

  it('shows a refusal under the modal’s inputs and creates nothing', async () => {
    const form = await openForm('Ship it');
    const submit = (values: Record<string, unknown>) =>
      slack.interaction(viewSubmissionBody({ user_id: OWNER, callback_id: 'create_card', private_metadata: form.metadata, values: values as any }));
    const empty = await submit({
      board: { board: { type: 'static_select', selected_option: { value: 'design' } } },
      title: { title: { type: 'plain_text_input', value: '   ' } },
      workflow_status: { workflow_status: { type: 'static_select', selected_option: { value: 'backlog' } } },
    });
    expect(empty.status).toBe(200);
    expect(empty.body.response_action).toBe('errors');
    expect(Object.keys(empty.body.errors)).toEqual(['title']);
    const unlinked = await submit({
      board: { board: { type: 'static_select', selected_option: { value: 'design' } } },
      title: { title: { type: 'plain_text_input', value: 'Ship it' } },
      assignee_ids: { assignee_ids: { type: 'multi_users_select', selected_users: ['U0NOBODY'] } },
      workflow_status: { workflow_status: { type: 'static_select', selected_option: { value: 'backlog' } } },
    });
    expect(unlinked.body.errors.assignee_ids).toContain('<@U0NOBODY> has no tack member');
    expect((await t.api('GET', '/v1/cards?board=design')).body.data.filter((c: any) => c.title === 'Ship it')).toEqual([]);
  });
});
