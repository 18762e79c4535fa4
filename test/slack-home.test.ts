import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { addMember, eventually, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { blockActionsBody, homeClickBody, messageShortcutBody, selectBody, slackClient, viewSubmissionBody } from './helpers/slack-request.js';

/**
 * Where teammates work, end to end: signed Slack requests into the real server (commands,
 * shortcuts, modal submissions, selects, events), the fake Slack Web API recording what the
 * app did, and the result checked through /v1.
 */

const SECRET = 'home-secret';
const APP_URL = 'https://tack.example.com';
const USER = 'U0HOME';
const VIEWER = 'U0VIEW';

let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;
let me: { id: string; token: string };
let viewer: TestMember;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-home', SLACK_API_URL: fake.apiUrl, APP_URL });
  slack = slackClient(t.url, SECRET);
  const owner = await t.api('GET', '/v1/me');
  me = { id: owner.body.member.id, token: t.token };
  expect((await t.api('PATCH', `/v1/members/${me.id}`, { body: { slack_user_id: USER, tz: 'UTC' } })).status).toBe(200);
  viewer = await addMember(t, { name: 'Vera', slack_user_id: VIEWER, role: 'viewer' });
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' } })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clear());

async function command(name: string, text: string, user = USER): Promise<{ path: string; trigger: string }> {
  const response_url = fake.responseUrl();
  const trigger = `trig-${Math.random().toString(36).slice(2)}`;
  const res = await slack.command({ command: name, text, response_url, user_id: user, trigger_id: trigger });
  expect(res.status).toBe(200);
  return { path: new URL(response_url).pathname, trigger };
}

const replyAt = (path: string) => fake.waitFor((c) => c.path === path);

describe('/tack', () => {
  it('help lists every command with an example', async () => {
    const { path } = await command('/tack', 'help');
    const reply = await replyAt(path);
    expect(reply.body.response_type).toBe('ephemeral');
    const text = JSON.stringify(reply.body.blocks);
    for (const cmd of ['/todo add', '/card ENG-42', '/milestone M3 subscribe', '/snippet', '/tack login']) expect(text).toContain(cmd);
  });

  it('login answers, to the caller only, a one-time sign-in link to the web app', async () => {
    const { path } = await command('/tack', 'login');
    const reply = await replyAt(path);
    expect(reply.body.response_type).toBe('ephemeral');
    const url = reply.body.blocks[0].accessory.url as string;
    expect(url).toMatch(new RegExp(`^${APP_URL}/signin\\?code=`));
    // The link is live: exchanging it signs the member in.
    const signin = await fetch(`${t.url}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: t.url },
      body: JSON.stringify({ code: new URL(url).searchParams.get('code') }),
      redirect: 'manual',
    });
    expect(signin.status).toBe(303);
  });

  it('reminder-hour sets the member field that /v1 shows, and refuses an hour that is not one', async () => {
    const { path } = await command('/tack', 'reminder-hour 7');
    expect((await replyAt(path)).body.text).toBe('Done: your due-todo reminders come at 07:00 in your time zone.');
    expect((await t.api('GET', '/v1/me')).body.member.reminder_hour).toBe(7);
    const bad = await command('/tack', 'reminder-hour 24');
    expect((await replyAt(bad.path)).body.text).toContain('reminder_hour');
    expect((await t.api('GET', '/v1/me')).body.member.reminder_hour).toBe(7);
    const reset = await command('/tack', 'reminder-hour default');
    expect((await replyAt(reset.path)).body.text).toContain("the server's hour, 09:00");
    expect((await t.api('GET', '/v1/me')).body.member.reminder_hour).toBeNull();
  });
});

describe('the create_todo shortcut and its modal', () => {
  it('opens the modal prefilled from the message, answers a bad submission with the field errors in place, then adds the todo with its permalink', async () => {
    const long = `Fix <@U0BOB> the &lt;login&gt; page\n${'and more '.repeat(60)}`;
    const response_url = fake.responseUrl();
    const res = await slack.interaction(messageShortcutBody({ user_id: USER, channel_id: 'C0WORK', ts: '1712000000.000200', text: long, response_url }));
    expect(res.status).toBe(200);
    const open = await fake.waitFor((c) => c.method === 'views.open');
    const view = open.body.view;
    expect(view.callback_id).toBe('create_todo');
    const title = view.blocks.find((b: any) => b.block_id === 'title').element.initial_value as string;
    expect(title.startsWith('Fix @U0BOB the <login> page and more')).toBe(true);
    expect(title.length).toBe(300);
    expect(title.endsWith('…')).toBe(true);
    // Opened at once; the permalink comes after, in place (views.update of the open form).
    expect(JSON.parse(view.private_metadata).source_url).toBeUndefined();
    const update = await fake.waitFor((c) => c.method === 'views.update');
    expect(update.body.view_id).toMatch(/^V/);
    expect(update.body.hash).toMatch(/^h/);
    const updated = update.body.view;
    expect(updated.blocks.find((b: any) => b.block_id === 'title').element.initial_value).toBe(title);
    const metadata = JSON.parse(updated.private_metadata);
    expect(metadata.source_url).toBe('https://example.slack.com/archives/C0WORK/p1712000000000200');

    // Submitted with an empty title: the operation's field error, under the title input.
    const today = new Date().toISOString().slice(0, 10);
    const values = (titleValue: string | null, date: string | null = today) => ({
      title: { title: { type: 'plain_text_input', value: titleValue } },
      due_on: { due_on: { type: 'datepicker', selected_date: date } },
      priority: { priority: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: 'High' }, value: 'high' } } },
    });
    const refused = await slack.interaction(viewSubmissionBody({ user_id: USER, callback_id: 'create_todo', private_metadata: updated.private_metadata, values: values('   ') }));
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ response_action: 'errors', errors: { title: 'Must not be empty.' } });
    expect((await t.api('GET', '/v1/todos')).body.data.filter((x: any) => x.source_url)).toEqual([]);

    const accepted = await slack.interaction(viewSubmissionBody({ user_id: USER, callback_id: 'create_todo', private_metadata: updated.private_metadata, values: values('Fix the login page') }));
    expect(accepted.status).toBe(200);
    expect(accepted.text).toBe('');
    const confirmation = await replyAt(new URL(response_url).pathname);
    expect(confirmation.body.text).toBe(`Added todo "Fix the login page" (high, due ${today}).`);
    const todos = (await t.api('GET', '/v1/todos')).body.data;
    expect(todos.find((x: any) => x.title === 'Fix the login page')).toMatchObject({
      priority: 'high',
      due_on: today,
      source_url: 'https://example.slack.com/archives/C0WORK/p1712000000000200',
    });
    // The member's Home tab is refreshed with it.
    const home = await fake.waitFor((c) => c.method === 'views.publish' && c.body.user_id === USER);
    expect(JSON.stringify(home.body.view)).toContain('Fix the login page');
  });

  it('refuses a viewer in the modal itself, with the operation’s message', async () => {
    const res = await slack.interaction(
      viewSubmissionBody({ user_id: VIEWER, callback_id: 'create_todo', private_metadata: '{}', values: { title: { title: { type: 'plain_text_input', value: 'Not allowed' } } } }),
    );
    expect(res.body.response_action).toBe('errors');
    expect(res.body.errors.title).toMatch(/viewer|read/i);
    expect((await t.api('GET', '/v1/todos', { token: viewer.token })).body.data).toEqual([]);
  });

  it('refuses an unlinked Slack user in the modal with one whole sentence (a field error shows 150 characters)', async () => {
    const res = await slack.interaction(
      viewSubmissionBody({ user_id: 'U0NOTLINKED', callback_id: 'create_todo', private_metadata: '{}', values: { title: { title: { type: 'plain_text_input', value: 'Nobody' } } } }),
    );
    expect(res.body.response_action).toBe('errors');
    expect(res.body.errors.title).toBe('Your Slack account (U0NOTLINKED) is not linked to a tack member, so nothing was saved. Run /tack connect to link it.');
  });

  it('/todo add with no text opens the same modal, and its submission answers the command', async () => {
    const { path, trigger } = await command('/todo', 'add');
    const open = await fake.waitFor((c) => c.method === 'views.open' && c.body.trigger_id === trigger);
    expect(open.body.view.callback_id).toBe('create_todo');
    expect(fake.calls.some((c) => c.path === path)).toBe(false);
    const res = await slack.interaction(
      viewSubmissionBody({
        user_id: USER,
        callback_id: 'create_todo',
        private_metadata: open.body.view.private_metadata,
        values: { title: { title: { type: 'plain_text_input', value: 'From the form' } }, priority: { priority: { type: 'static_select', selected_option: { value: 'low' } } } },
      }),
    );
    expect(res.status).toBe(200);
    expect((await replyAt(path)).body.text).toBe('Added todo "From the form" (low).');
  });
});

describe('/card with its status select', () => {
  it('moves the card with the select and shows its new state in place; a viewer is refused in place', async () => {
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Ship <it> & more', criteria: ['a'] } })).body;
    const { path } = await command('/card', card.ref);
    const shown = await replyAt(path);
    const select = shown.body.blocks.find((b: any) => b.type === 'actions');
    expect(select.block_id).toBe(`card:${card.id}`);
    expect(select.elements[0]).toMatchObject({ type: 'static_select', action_id: 'card_move', initial_option: { value: 'backlog' } });

    const response_url = fake.responseUrl();
    expect((await slack.interaction(selectBody({ user_id: USER, action_id: 'card_move', block_id: select.block_id, value: 'in_review', response_url }))).status).toBe(200);
    const moved = await replyAt(new URL(response_url).pathname);
    expect(moved.body.replace_original).toBe(true);
    expect(moved.body.text).toBe(`Moved ${card.ref} to In review. ${card.ref} Ship <it> &amp; more (In review)`.replace('<it>', '&lt;it&gt;'));
    expect(moved.body.blocks.find((b: any) => b.type === 'actions').elements[0].initial_option.value).toBe('in_review');
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.workflow_status).toBe('in_review');

    const refusedAt = fake.responseUrl();
    await slack.interaction(selectBody({ user_id: VIEWER, action_id: 'card_move', block_id: select.block_id, value: 'done', response_url: refusedAt }));
    const refused = await replyAt(new URL(refusedAt).pathname);
    expect(refused.body.replace_original).toBe(true);
    expect(JSON.stringify(refused.body.blocks)).toMatch(/:no_entry: .*(viewer|read)/i);
    // Shown as it stands: the select still on In review, and nothing moved.
    expect(refused.body.blocks.find((b: any) => b.type === 'actions').elements[0].initial_option.value).toBe('in_review');
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.workflow_status).toBe('in_review');
  });
});

describe('the Home tab', () => {
  it('is published on app_home_opened with the open todos due this week, cards in progress and followed milestones', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const todo = (await t.api('POST', '/v1/todos', { body: { title: 'Home <b>todo</b>', due_on: today } })).body;
    await t.api('POST', '/v1/todos', { body: { title: 'Far away', due_on: '2099-01-01' } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'In flight', assignee_ids: [me.id] } })).body;
    await t.api('PATCH', `/v1/cards/${card.id}`, { body: { workflow_status: 'in_progress' } });
    await t.api('POST', '/v1/milestones', { body: { ref: 'H1', name: 'Home sprint', kind: 'sprint' } });
    const sub = await command('/milestone', 'H1 subscribe daily');
    await replyAt(sub.path);
    fake.clear();

    expect((await slack.event({ type: 'app_home_opened', user: USER, channel: 'D0HOME', tab: 'home', event_ts: `${Date.now() / 1000}` })).status).toBe(200);
    const publish = await fake.waitFor((c) => c.method === 'views.publish');
    expect(publish.body.user_id).toBe(USER);
    expect(publish.body.view.type).toBe('home');
    const json = JSON.stringify(publish.body.view.blocks);
    expect(json).toContain('Home &lt;b&gt;todo&lt;/b&gt;');
    expect(json).not.toContain('Far away');
    expect(json).toContain(`"action_id":"todo_done","value":"${todo.id}"`);
    expect(json).toContain(`*${card.ref}* In flight`);
    expect(json).toContain('*H1* Home sprint');

    // Done from the Home tab: the todo is completed and the tab published again without it.
    fake.clear();
    await slack.interaction(homeClickBody({ user_id: USER, action_id: 'todo_done', value: todo.id }));
    const again = await fake.waitFor((c) => c.method === 'views.publish');
    expect(JSON.stringify(again.body.view.blocks)).not.toContain('Home &lt;b&gt;todo');
    expect((await t.api('GET', '/v1/todos?done=true')).body.data.some((x: any) => x.id === todo.id)).toBe(true);
  });

  it('tells a Slack user with no tack member how to link', async () => {
    await slack.event({ type: 'app_home_opened', user: 'U0NOBODY', channel: 'D0NOBODY', tab: 'home', event_ts: `${Date.now() / 1000}` });
    const publish = await fake.waitFor((c) => c.method === 'views.publish' && c.body.user_id === 'U0NOBODY');
    expect(JSON.stringify(publish.body.view.blocks)).toContain('not linked to a tack member');
  });
});

describe('unfurls', () => {
  const unfurlOf = (call: RecordedCall, url: string) => call.body.unfurls[url];

  it('unfurls links to cards, milestones and team snippets with their state; never a private snippet or a stranger’s link', async () => {
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Unfurl <me>', criteria: ['x', 'y'] } })).body;
    await t.api('POST', '/v1/milestones', { body: { ref: 'U1', name: 'Unfurl sprint', kind: 'deadline' } });
    const team = (await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Deploy steps', body: 'one\ntwo\nsecret-ish', visibility: 'team' } })).body;
    const mine = (await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Private notes', body: 'private', visibility: 'private' } })).body;
    const links = [`${APP_URL}/cards/${card.ref}`, `${APP_URL}/milestones/U1`, `${APP_URL}/snippets/${team.slug}`, `${APP_URL}/snippets/${mine.id}`, 'https://elsewhere.example/cards/ENG-1'];
    const event = { type: 'link_shared', user: USER, channel: 'C0WORK', message_ts: '1712000000.000300', links: links.map((url) => ({ url, domain: new URL(url).host })) };
    expect((await slack.event(event)).status).toBe(200);
    const unfurl = await fake.waitFor((c) => c.method === 'chat.unfurl');
    expect(unfurl.body).toMatchObject({ channel: 'C0WORK', ts: '1712000000.000300' });
    expect(Object.keys(unfurl.body.unfurls).sort()).toEqual([links[0], links[1], links[2]].sort());
    const cardJson = JSON.stringify(unfurlOf(unfurl, links[0]!));
    expect(cardJson).toContain(`|${card.ref} Unfurl &lt;me&gt;>`);
    expect(cardJson).toContain('*Status*\\nBacklog');
    expect(cardJson).toContain('0 / 2');
    expect(JSON.stringify(unfurlOf(unfurl, links[1]!))).toContain('*Cards done*\\n0 / 0');
    const snippetJson = JSON.stringify(unfurlOf(unfurl, links[2]!));
    expect(snippetJson).toContain('Deploy steps');
    expect(snippetJson).not.toContain('secret-ish');

    // Posted by a Slack user with no tack member: nothing unfurls.
    fake.clear();
    await slack.event({ ...event, user: 'U0STRANGER' });
    await eventually(() => fake.calls.some((c) => c.method === 'users.info'), 5_000, 'the stranger looked up');
    expect(fake.callsTo('chat.unfurl')).toEqual([]);
  });

  it('carries a status select and Assign to me on a card, both acting as the member who clicks', async () => {
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Controls' } })).body;
    const url = `${APP_URL}/cards/${card.ref}`;
    await slack.event({ type: 'link_shared', user: USER, channel: 'C0UNF', message_ts: '1712000000.000900', links: [{ url, domain: 'tack.example.com' }] });
    const first = await fake.waitFor((c) => c.method === 'chat.unfurl' && c.body.channel === 'C0UNF');
    const actions = first.body.unfurls[url].blocks.find((b: any) => b.type === 'actions');
    expect(actions.block_id).toBe(`unfurl:${card.id}`);
    const moves = (await t.api('GET', `/v1/cards/${card.id}/moves`)).body.data.filter((m: any) => m.allowed).map((m: any) => m.workflow_status);
    expect(actions.elements[0].options.map((o: any) => o.value)).toEqual(moves);
    expect(actions.elements[1]).toMatchObject({ type: 'button', action_id: 'unfurl_card_assign_me', value: card.id });

    fake.clear();
    await slack.interaction(selectBody({ user_id: USER, action_id: 'unfurl_card_move', block_id: actions.block_id, value: 'in_review', response_url: fake.responseUrl(), channel_id: 'C0UNF' }));
    const moved = await fake.waitFor((c) => c.method === 'chat.unfurl' && c.body.channel === 'C0UNF', 10_000);
    expect(JSON.stringify(moved.body.unfurls[url])).toContain('*Status*\\nIn review');
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.workflow_status).toBe('in_review');

    fake.clear();
    const me = (await t.api('GET', '/v1/me')).body.member.id;
    await slack.interaction(blockActionsBody({ user_id: USER, action_id: 'unfurl_card_assign_me', value: card.id, block_id: actions.block_id, response_url: fake.responseUrl(), channel_id: 'C0UNF' }));
    await fake.waitFor((c) => c.method === 'chat.unfurl' && c.body.channel === 'C0UNF', 10_000);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.assignee_ids).toEqual([me]);
  });
});
