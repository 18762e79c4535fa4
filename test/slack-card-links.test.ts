import { sign } from '@octokit/webhooks-methods';
import examples from '@octokit/webhooks-examples';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * A card's pull requests in Slack (issue 31): `/card ENG-1` and an unfurl of the card's link
 * list them (repository#number title · state), the five most recently updated, then how many
 * more. The links are made as GitHub makes them: signed `pull_request` deliveries.
 */
const SECRET = 'links-slack-secret';
const GITHUB_SECRET = 'links-github-secret';
const APP_URL = 'https://tack.example.com';
const USER = 'U0LINKS';

let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;

// GitHub's documented example payload (npm @octokit/webhooks-examples), adapted with our ref.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the examples' types are the whole webhook union; the test edits a few fields
const definitions = examples as unknown as { name: string; examples: any[] }[];
const opened = definitions.find((e) => e.name === 'pull_request')!.examples.find((e) => e.action === 'opened');

async function pullRequest(number: number, ref: string, shape: { title: string; draft?: boolean; merged?: boolean; closed?: boolean; minutesAgo: number }): Promise<void> {
  const p = structuredClone(opened);
  p.action = shape.closed || shape.merged ? 'closed' : 'opened';
  p.number = number;
  Object.assign(p.pull_request, {
    number,
    html_url: `https://github.com/acme/web/pull/${number}`,
    title: shape.title,
    body: `Part of ${ref}`,
    draft: shape.draft ?? false,
    state: shape.closed || shape.merged ? 'closed' : 'open',
    merged: shape.merged ?? false,
    merged_at: shape.merged ? new Date().toISOString() : null,
    merged_by: shape.merged ? { ...p.sender, login: 'octo-ann', type: 'User' } : null,
    updated_at: new Date(Date.now() - shape.minutesAgo * 60_000).toISOString(),
  });
  p.pull_request.head.ref = `feature/${ref.toLowerCase()}-part-${number}`;
  p.repository.full_name = 'acme/web';
  const body = JSON.stringify(p);
  const res = await fetch(`${t.url}/github/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': await sign(GITHUB_SECRET, body) },
    body,
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-links', SLACK_API_URL: fake.apiUrl, APP_URL, GITHUB_WEBHOOK_SECRET: GITHUB_SECRET });
  slack = slackClient(t.url, SECRET);
  const owner = await t.api('GET', '/v1/me');
  expect((await t.api('PATCH', `/v1/members/${owner.body.member.id}`, { body: { slack_user_id: USER, tz: 'UTC' } })).status).toBe(200);
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' } })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clear());

/** The text of the context block that lists the pull requests. */
function linksText(blocks: { type: string; elements?: { text?: string }[] }[]): string | undefined {
  return blocks.filter((b) => b.type === 'context').map((b) => (b.elements ?? []).map((e) => e.text ?? '').join('\n')).find((text) => text.includes('github.com/acme/web/pull/'));
}

async function cardReply(ref: string): Promise<RecordedCall> {
  const response_url = fake.responseUrl();
  const res = await slack.command({ command: '/card', text: ref, response_url, user_id: USER });
  expect(res.status).toBe(200);
  return fake.waitFor((c) => c.path === new URL(response_url).pathname);
}

it('lists a card\'s pull requests with their state in /card and in its unfurl, the latest five, then how many more', async () => {
  const card = (await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Linked card' } })).body;
  const bare = (await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'No pull request' } })).body;
  // Six pull requests, updated 60 to 10 minutes ago: #106 is the latest, #101 the oldest.
  await pullRequest(101, card.ref, { title: 'Oldest change', minutesAgo: 60 });
  await pullRequest(102, card.ref, { title: 'Closed <unmerged>', closed: true, minutesAgo: 50 });
  await pullRequest(103, card.ref, { title: 'Merged fix', merged: true, minutesAgo: 40 });
  await pullRequest(104, card.ref, { title: 'Draft idea', draft: true, minutesAgo: 30 });
  await pullRequest(105, card.ref, { title: 'Open change', minutesAgo: 20 });
  await pullRequest(106, card.ref, { title: 'Latest change', minutesAgo: 10 });
  expect((await t.api('GET', `/v1/cards/${card.ref}/links`)).body.data).toHaveLength(6);

  const reply = await cardReply(card.ref);
  const text = linksText(reply.body.blocks);
  expect(text?.split('\n')).toEqual([
    ':twisted_rightwards_arrows: <https://github.com/acme/web/pull/106|acme/web#106 Latest change> · open',
    ':twisted_rightwards_arrows: <https://github.com/acme/web/pull/105|acme/web#105 Open change> · open',
    ':twisted_rightwards_arrows: <https://github.com/acme/web/pull/104|acme/web#104 Draft idea> · draft',
    ':twisted_rightwards_arrows: <https://github.com/acme/web/pull/103|acme/web#103 Merged fix> · merged',
    ':twisted_rightwards_arrows: <https://github.com/acme/web/pull/102|acme/web#102 Closed &lt;unmerged&gt;> · closed',
    '…and 1 more.',
  ]);
  // Within Block Kit's limits: a context element's text at most 3,000 characters.
  for (const block of reply.body.blocks) for (const e of block.elements ?? []) if (typeof e.text === 'string') expect(e.text.length).toBeLessThanOrEqual(3000);

  // A card no pull request names: no such block at all.
  expect(linksText((await cardReply(bare.ref)).body.blocks)).toBeUndefined();

  const url = `${APP_URL}/cards/${card.ref}`;
  expect((await slack.event({ type: 'link_shared', user: USER, channel: 'C0LINKS', message_ts: '1712000000.000500', links: [{ url, domain: 'tack.example.com' }] })).status).toBe(200);
  const unfurl = await fake.waitFor((c) => c.method === 'chat.unfurl' && c.body.channel === 'C0LINKS');
  expect(linksText(unfurl.body.unfurls[url].blocks)).toBe(text);
});
