import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { confirmSlackConnect } from '../src/domain/slack-connect.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { member, type Role } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackClient } from './helpers/slack-request.js';
import { signIn, type Browser } from './helpers/web.js';

/**
 * How a Slack user becomes a tack member, tried as an attacker would (contract §9): linking by
 * e-mail only for addresses Slack says are confirmed, and only to members and viewers (a Slack
 * workspace admin can set anyone's address); owners and admins, and everyone else, with
 * `/tack connect`: a one-time link confirmed in a signed-in web session.
 */

const SECRET = 'connect-secret';
let fake: FakeSlack;
let t: TestServer;
let slack: ReturnType<typeof slackClient>;
let ownerId: string;
let offsetMs = 0;
const nowMs = () => Date.now() + offsetMs;

/** What Slack's users.info says of each Slack user: their profile e-mail and whether it is confirmed. */
const PROFILES: Record<string, { email: string; confirmed: boolean }> = {};

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer({ SLACK_SIGNING_SECRET: SECRET, SLACK_BOT_TOKEN: 'xoxb-connect', SLACK_API_URL: fake.apiUrl }, { clock: () => new Date(nowMs()) });
  slack = slackClient(t.url, SECRET);
  ownerId = (await t.api('GET', '/v1/me')).body.member.id;
  expect((await t.api('PATCH', `/v1/members/${ownerId}`, { body: { email: 'owner@example.com' } })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.clear();
  fake.handle('users.info', (call) => {
    const p = PROFILES[String(call.body.user)];
    return { body: { ok: true, user: { id: call.body.user, tz: 'UTC', is_email_confirmed: p?.confirmed ?? false, profile: p ? { email: p.email } : {} } } };
  });
});

/** A slash command from a Slack user; the ephemeral answer. */
async function command(user: string, name: string, text: string): Promise<any> {
  const response_url = fake.responseUrl();
  const res = await slack.command({ command: name, text, response_url, user_id: user, user_name: user.toLowerCase() }, { timestamp: Math.floor(nowMs() / 1000) });
  expect(res.status).toBe(200);
  return (await fake.waitFor((c) => c.path === new URL(response_url).pathname)).body;
}

const slackIdOf = async (memberId: string) => (await t.api('GET', '/v1/members?limit=100')).body.data.find((m: { id: string }) => m.id === memberId)?.slack_user_id;

async function newMember(name: string, role: Role, email: string): Promise<string> {
  return (await member(t, { name, role, email })).id;
}

/** `/tack connect` as `user`: the link it answers. */
async function connectLink(user: string): Promise<string> {
  const reply = await command(user, '/tack', 'connect');
  expect(reply.response_type).toBe('ephemeral');
  const url = reply.blocks[0].accessory.url as string;
  expect(url).toMatch(new RegExp(`^${t.url.replace(/[.]/g, '\\.')}/slack/connect\\?code=[A-Za-z0-9_-]{43}$`));
  return url;
}

function page(url: string, browser?: Browser): Promise<Response> {
  return fetch(url, { headers: { accept: 'text/html', ...(browser ? { cookie: browser.cookie } : {}) }, redirect: 'manual' });
}

function confirm(url: string, options: { browser?: Browser; origin?: string | null; json?: boolean } = {}): Promise<Response> {
  const code = new URL(url).searchParams.get('code')!;
  const origin = options.origin === undefined ? t.url : options.origin;
  return fetch(`${t.url}/slack/connect`, {
    method: 'POST',
    headers: {
      'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded',
      ...(origin !== null ? { origin } : {}),
      ...(options.browser ? { cookie: options.browser.cookie } : {}),
    },
    body: options.json ? JSON.stringify({ code }) : new URLSearchParams({ code }).toString(),
    redirect: 'manual',
  });
}

describe('linking by e-mail', () => {
  it('never links an owner by e-mail, confirmed or not', async () => {
    PROFILES.U0OWNER = { email: 'OWNER@example.com', confirmed: true };
    const reply = await command('U0OWNER', '/todo', '');
    expect(reply.text).toContain('not linked to a tack member');
    expect(reply.text).toContain('/tack connect');
    expect(await slackIdOf(ownerId)).toBeNull();
  });

  it('never links an admin by e-mail', async () => {
    const admin = await newMember('Ada', 'admin', 'ada@example.com');
    PROFILES.U0ADA = { email: 'ada@example.com', confirmed: true };
    expect((await command('U0ADA', '/todo', '')).text).toContain('not linked');
    expect(await slackIdOf(admin)).toBeNull();
  });

  it('never links an unconfirmed address, and links a member by a confirmed one', async () => {
    const mo = await newMember('Mo', 'member', 'mo@example.com');
    PROFILES.U0MO = { email: 'mo@example.com', confirmed: false };
    expect((await command('U0MO', '/todo', '')).text).toContain('not linked');
    expect(await slackIdOf(mo)).toBeNull();
    PROFILES.U0MO = { email: 'mo@example.com', confirmed: true };
    expect((await command('U0MO', '/todo', '')).text).toContain('Nothing open is due this week');
    expect(await slackIdOf(mo)).toBe('U0MO');
  });

  it('links a viewer by a confirmed address', async () => {
    const vi = await newMember('Vi', 'viewer', 'vi@example.com');
    PROFILES.U0VI = { email: 'vi@example.com', confirmed: true };
    await command('U0VI', '/todo', '');
    expect(await slackIdOf(vi)).toBe('U0VI');
  });
});

describe('/tack connect', () => {
  it('is listed by /tack help', async () => {
    // Asked by Mo, linked by e-mail above.
    const reply = await command('U0MO', '/tack', 'help');
    expect(JSON.stringify(reply.blocks)).toContain('/tack connect');
  });

  it('links the owner end to end: link in Slack, GET shows and changes nothing, a signed-in POST links, and the Slack user acts as the owner', async () => {
    const url = await connectLink('U0OWNER');
    const owner = await signIn(t, ownerId);

    // A link scanner or an unfurler: no cookie. Told how to sign in; nothing linked.
    const anonymous = await page(url);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('cache-control')).toBe('no-store');
    const anonymousHtml = await anonymous.text();
    expect(anonymousHtml).toContain('Sign in to tack first');
    expect(anonymousHtml).toContain('/tack login');

    // Signed in: what confirming links; still nothing changed.
    const shown = await page(url, owner);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await shown.text();
    expect(html).toContain('@u0owner');
    expect(html).toContain('U0OWNER');
    expect(html).toContain('(owner)');
    expect(html).toContain('<form method="post" action="/slack/connect">');
    expect(await slackIdOf(ownerId)).toBeNull();

    // The form posted from another site, or without a session: refused, nothing linked.
    const crossSite = await confirm(url, { browser: owner, origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain('another site');
    const crossSiteJson = await confirm(url, { browser: owner, origin: 'https://evil.example', json: true });
    expect(crossSiteJson.status).toBe(403);
    expect(((await crossSiteJson.json()) as { code: string }).code).toBe('cross_site_request');
    const noSession = await confirm(url);
    expect(noSession.status).toBe(401);
    expect(await noSession.text()).toContain('Sign in to tack first');
    expect(await slackIdOf(ownerId)).toBeNull();

    // Confirmed from tack's own page, signed in: linked.
    const linked = await confirm(url, { browser: owner });
    expect(linked.status).toBe(200);
    expect(linked.headers.get('cache-control')).toBe('no-store');
    expect(await linked.text()).toContain('Slack account linked');
    expect(await slackIdOf(ownerId)).toBe('U0OWNER');

    // The Slack user now acts as the owner: an owner-only act works from Slack.
    const reply = await command('U0OWNER', '/todo', 'add Linked from Slack');
    expect(reply.text).toContain('Added todo "Linked from Slack"');
    const todos = (await t.api('GET', '/v1/todos?limit=100')).body.data as { title: string }[];
    expect(todos.map((x) => x.title)).toContain('Linked from Slack');

    // One use.
    const again = await confirm(url, { browser: owner });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('does not work');
    expect((await page(url, owner)).status).toBe(400);
    // Linked now: /tack connect says to whom, and makes no link.
    const twice = await command('U0OWNER', '/tack', 'connect');
    expect(twice.text).toContain('already linked');
    expect(JSON.stringify(twice)).not.toContain('/slack/connect?code=');
  });

  it('stores the link as a hash only, and refuses it after 15 minutes', async () => {
    const admin = await newMember('Ari', 'admin', 'ari@example.com');
    const adminToken = await t.api('POST', '/v1/tokens', { body: { name: 'ari', scopes: ['read', 'write', 'replay', 'config:write'], member_id: admin } });
    const url = await connectLink('U0ARI');
    const code = new URL(url).searchParams.get('code')!;
    expect(JSON.stringify(await t.database!.query('select * from slack_connect_links'))).not.toContain(code);
    const browser = await signIn(t, admin, adminToken.body.token);
    offsetMs = 16 * 60_000;
    try {
      const late = await confirm(url, { browser });
      expect(late.status).toBe(400);
      expect(await late.text()).toContain('has expired');
    } finally {
      offsetMs = 0;
    }
    expect(await slackIdOf(admin)).toBeNull();
    // A new link, in time: the admin is linked.
    expect((await confirm(await connectLink('U0ARI'), { browser })).status).toBe(200);
    expect(await slackIdOf(admin)).toBe('U0ARI');
  });

  it('never moves a Slack user linked to another member: 409, nothing changes', async () => {
    const bea = await newMember('Bea', 'member', 'bea@example.com');
    const beaToken = await t.api('POST', '/v1/tokens', { body: { name: 'bea', scopes: ['read', 'write', 'replay'], member_id: bea } });
    // A link asked for by a Slack user that, by the time Bea confirms it, another member (Vi) is linked to.
    const url = await connectLink('U0NEWMO');
    await t.database!.query(`update members set slack_user_id = 'U0NEWMO' where name = 'Vi'`);
    const browser = await signIn(t, bea, beaToken.body.token);
    const shown = await page(url, browser);
    expect(shown.status).toBe(409);
    expect(await shown.text()).toContain('Vi');
    const refused = await confirm(url, { browser });
    expect(refused.status).toBe(409);
    expect(await slackIdOf(bea)).toBeNull();
    expect((await t.database!.query<{ slack_user_id: string }>(`select slack_user_id from members where name = 'Vi'`))[0]!.slack_user_id).toBe('U0NEWMO');
  });

  it('says so for an unknown code', async () => {
    const owner = await signIn(t, ownerId);
    const res = await page(`${t.url}/slack/connect?code=${'x'.repeat(43)}`, owner);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('does not work');
  });

  it('is refused to a sign-in that carries less than its member’s role (it would give the Slack user the whole role)', async () => {
    const cy = await newMember('Cy', 'member', 'cy@example.com');
    const cyToken = await t.api('POST', '/v1/tokens', { body: { name: 'cy', scopes: ['read', 'write', 'replay'], member_id: cy } });
    const browser = await signIn(t, cy, cyToken.body.token);
    const sessions = await browser.request('GET', '/v1/sessions');
    const sessionId = (sessions.body.data as { id: string; current: boolean }[]).find((x) => x.current)!.id;
    const url = await connectLink('U0CY');
    const code = new URL(url).searchParams.get('code')!;
    const orgId = (await t.api('GET', '/v1/me')).body.org.id;
    const narrow = { orgId, memberId: cy, tokenId: null, sessionId, role: 'member' as const, scopes: ['read' as const], agent: false };
    const db = t.server.db.db;
    await expect(db.transaction().execute((trx) => confirmSlackConnect(trx, code, narrow, new Date(nowMs())))).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
    await expect(db.transaction().execute((trx) => confirmSlackConnect(trx, code, { ...narrow, scopes: ['read', 'write', 'replay'], agent: true }, new Date(nowMs())))).rejects.toMatchObject({ status: 403, code: 'requires_human' });
    expect(await slackIdOf(cy)).toBeNull();
    // The same session with its full role links (the code was left unused by the refusals).
    expect((await confirm(url, { browser })).status).toBe(200);
    expect(await slackIdOf(cy)).toBe('U0CY');
  });
});
