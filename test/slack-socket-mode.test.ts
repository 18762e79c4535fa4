import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { commandBody, slackClient } from './helpers/slack-request.js';

// Socket Mode needs Slack's WebSocket endpoint, which the fake does not serve: this checks
// the wiring (who is asked for a connection, with which token) and that HTTP is off.
describe('with SLACK_APP_TOKEN (Socket Mode)', () => {
  let fake: FakeSlack;
  let t: TestServer;
  beforeAll(async () => {
    fake = await startFakeSlack();
    fake.handle('apps.connections.open', { body: { ok: false, error: 'not_allowed_token_type' } });
    t = await startTestServer({ SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'xoxb-test', SLACK_APP_TOKEN: 'xapp-test', SLACK_API_URL: fake.apiUrl });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('asks SLACK_API_URL for a socket with the app token once the server is ready', async () => {
    const call = await fake.waitFor((c) => c.method === 'apps.connections.open');
    expect(call.authorization).toBe('Bearer xapp-test');
  });

  it('serves no /slack/events, and /v1 as usual', async () => {
    const res = await slackClient(t.url, 's').form(commandBody({ command: '/todo', response_url: fake.responseUrl() }));
    expect(res.status).toBe(404);
    expect((await t.api('GET', '/v1/me')).status).toBe(200);
  });
});
