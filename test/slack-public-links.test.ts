import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';

/**
 * Public snippet links name the address people reach tack at: with only APP_URL set (tack
 * behind a proxy), `/snippet` in Slack and `public_url` show `${APP_URL}/p/…`, never the
 * server's local address.
 */

const SECRET = 'links-secret';
const APP_URL = 'https://tack.example.com';
let fake: FakeSlack;
let t: TestServer;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-links', SLACK_API_URL: fake.apiUrl, APP_URL });
  const me = await t.api('GET', '/v1/me');
  expect((await t.api('PATCH', `/v1/members/${me.body.member.id}`, { body: { slack_user_id: 'U0LINKS' } })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('PUBLIC_BASE_URL', () => {
  it('defaults to ${APP_URL}/p when only APP_URL is set, to the local address when neither is, and is taken as given', () => {
    expect(loadConfig({ APP_URL: 'https://tack.example.com/' })).toMatchObject({ publicBaseUrl: 'https://tack.example.com/p', publicBaseUrlIsDefault: false });
    expect(loadConfig({})).toMatchObject({ publicBaseUrl: 'http://127.0.0.1:3000/p', publicBaseUrlIsDefault: true });
    expect(loadConfig({ APP_URL, PUBLIC_BASE_URL: 'https://s.example.com/' })).toMatchObject({ publicBaseUrl: 'https://s.example.com' });
  });

  it('/snippet shows the public link under APP_URL, and the server serves it at /p', async () => {
    const created = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'Behind a proxy', body: 'hello' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.public_url.startsWith(`${APP_URL}/p/`)).toBe(true);
    const response_url = fake.responseUrl();
    await slackClient(t.url, SECRET).command({ command: '/snippet', text: created.body.slug, response_url, user_id: 'U0LINKS' });
    const reply = await fake.waitFor((c) => c.path === new URL(response_url).pathname);
    const json = JSON.stringify(reply.body.blocks);
    expect(json).toContain(`<${created.body.public_url}|Public link>`);
    expect(json).not.toContain('127.0.0.1');
    // What a proxy in front forwards: the same path on the server.
    const served = await fetch(`${t.url}${new URL(created.body.public_url).pathname}`);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('hello');
  });
});
