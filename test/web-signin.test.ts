import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, leaksIn } from './helpers/envelope.js';
import { memberWithToken, type Role } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { browser, codeOf, postSignin, sessionCookieOf, signIn, signinLink } from './helpers/web.js';

/** Sign-in by one-time link (contract §8), with a clock the tests can move forward. */
let t: TestServer;
let offsetMs = 0;
const printed: string[] = [];
beforeAll(async () => {
  t = await startTestServer({}, { clock: () => new Date(Date.now() + offsetMs), print: (line) => printed.push(line) });
});
afterAll(async () => t?.close());

async function member(name: string, role: Role): Promise<{ id: string; token: string }> {
  return memberWithToken(t, { name, role }, { name, scopes: ['read', 'write', 'config:write'] });
}

const linkRows = () => t.database!.query<{ used_at: string | null }>('select used_at from signin_links');

describe('the first start', () => {
  it('prints a sign-in link for the owner even though the owner token was given', async () => {
    const line = printed.find((l) => l.includes('/signin?code='));
    expect(line, printed.join('\n')).toMatch(new RegExp(`open ${t.url.replace(/[.]/g, '\\.')}/signin\\?code=[A-Za-z0-9_-]{43} `));
    const res = await postSignin(t, codeOf(line!.split(' ').find((w) => w.includes('/signin?code='))!));
    expect(res.status).toBe(303);
    const me = await browser(t, sessionCookieOf(res)!).request('GET', '/v1/me');
    expect(me.body.member.role).toBe('owner');
  });
});

describe('createSigninLink', () => {
  it('answers 201 {url, expires_at}: {APP_URL}/signin?code=…, valid 15 minutes, kept only as a hash', async () => {
    const me = (await t.api('GET', '/v1/me')).body.member;
    const before = Date.now();
    const res = await t.api('POST', `/v1/members/${me.id}/signin-links`);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'url']);
    expect(res.body.url).toMatch(new RegExp(`^${t.url.replace(/[.]/g, '\\.')}/signin\\?code=[A-Za-z0-9_-]{43}$`));
    const ttl = Date.parse(res.body.expires_at) - before;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 5_000);
    const dump = JSON.stringify(await t.database!.query('select * from signin_links'));
    expect(dump).not.toContain(codeOf(res.body.url));
  });

  it('follows the ladder: yourself with write, others with config:write, never above your own role', async () => {
    const admin = await member('Ada Admin', 'admin');
    const plain = await member('Mo Member', 'member');
    const viewer = await member('Vi Viewer', 'viewer');
    const owner = (await t.api('GET', '/v1/me')).body.member.id;
    const link = (target: string, token: string) => t.api('POST', `/v1/members/${target}/signin-links`, { token });

    expect((await link(plain.id, plain.token)).status).toBe(201);
    expect((await link(viewer.id, admin.token)).status).toBe(201);
    expect((await link(admin.id, admin.token)).status).toBe(201);
    expect((await link(owner, t.token)).status).toBe(201);
    expect((await link(admin.id, t.token)).status).toBe(201);

    expectEnvelope(await link(owner, admin.token), 403, 'forbidden_role');
    expectEnvelope(await link(viewer.id, plain.token), 403, 'forbidden_role');
    // A viewer writes nothing, not even a link for themself (Slack's /tack login is their way in).
    expectEnvelope(await link(viewer.id, viewer.token), 403, 'forbidden_role');
    const readOnly = await t.api('POST', '/v1/tokens', { body: { name: 'ro', scopes: ['read'] } });
    expectEnvelope(await link(owner, readOnly.body.token), 403, 'insufficient_scope');
    expectEnvelope(await link('mem_doesnotexist', t.token), 404, 'member_not_found');
  });

  it('is refused to agent tokens: a link would make them a human caller', async () => {
    const agent = await t.api('POST', '/v1/tokens', { body: { name: 'agent', scopes: ['read', 'write'], agent: true } });
    const me = (await t.api('GET', '/v1/me')).body.member.id;
    expectEnvelope(await t.api('POST', `/v1/members/${me}/signin-links`, { token: agent.body.token }), 403, 'signin_link_requires_human');
  });
});

describe('GET /signin', () => {
  it('answers a page with a Sign in button that posts the code, and uses nothing up', async () => {
    const link = await signinLink(t);
    const code = codeOf(link);
    const usedBefore = (await linkRows()).filter((r) => r.used_at !== null).length;
    for (let i = 0; i < 3; i++) {
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.getSetCookie()).toEqual([]);
      const html = await page.text();
      expect(html).toMatch(/<form method="post" action="\/signin">/);
      expect(html).toContain(`name="code" value="${code}"`);
      expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
      expect(html).not.toMatch(/<script/i);
    }
    expect((await linkRows()).filter((r) => r.used_at !== null).length).toBe(usedBefore);
    expect((await postSignin(t, code)).status).toBe(303);
  });

  it('escapes what it echoes and keeps only a same-origin next', async () => {
    const hostile = await member('"><script>alert(1)</script>', 'member');
    const code = codeOf(await signinLink(t, hostile.id));
    const res = await fetch(`${t.url}/signin?code=${code}&next=${encodeURIComponent('/boards?x="<b>')}`);
    const html = await res.text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
    expect(html).toContain('name="next" value="/boards?x=%22%3Cb%3E"');
    const offsite = await (await fetch(`${t.url}/signin?code=${code}&next=${encodeURIComponent('//evil.example/x')}`)).text();
    expect(offsite).not.toContain('evil.example');
  });

  it('names the organization and the member the link signs in as, and says so when a link will not work', async () => {
    const mo = await member('Mo & Co', 'member');
    const link = await signinLink(t, mo.id);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('signs you in as <strong>Mo &amp; Co</strong> in <strong>Default</strong>');
    // Unknown, malformed, used: the page says the link does not work, and offers no button.
    for (const bad of [`${t.url}/signin?code=${'x'.repeat(43)}`, `${t.url}/signin?code=abc`]) {
      const res = await fetch(bad);
      expect(res.status).toBe(400);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      expect(html).toContain('This sign-in link does not work');
      expect(html).not.toContain('<form');
    }
    expect((await postSignin(t, codeOf(link))).status).toBe(303);
    expect((await fetch(link)).status).toBe(400);
  });

  it('without a code, says how to get a link', async () => {
    const res = await fetch(`${t.url}/signin`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('tack signin-link');
  });
});

describe('POST /signin', () => {
  it('signs in once: sets tack_session (HttpOnly, SameSite=Lax, Path=/) and answers 303 to /', async () => {
    const code = codeOf(await signinLink(t));
    const res = await postSignin(t, code);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const set = res.headers.getSetCookie();
    expect(set).toHaveLength(1);
    expect(set[0]).toMatch(/^tack_session=[A-Za-z0-9_-]{43};/);
    expect(set[0]).toMatch(/; HttpOnly/);
    expect(set[0]).toMatch(/; SameSite=Lax/);
    expect(set[0]).toMatch(/; Path=\//);
    expect(set[0]).not.toMatch(/; Secure/); // plain HTTP here; tls.test covers HTTPS
    const me = await browser(t, sessionCookieOf(res)!).request('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ agent: false, scopes: ['read', 'write', 'replay', 'config:write'] });

    const again = await postSignin(t, code);
    expect(again.status).toBe(400);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(again.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await again.text()).toMatch(/already used, has expired/);
  });

  it('takes JSON too, and answers a used or unknown code with the invalid_signin_code envelope', async () => {
    const code = codeOf(await signinLink(t));
    const ok = await postSignin(t, code, { json: true });
    expect(ok.status).toBe(303);
    expect(sessionCookieOf(ok)).toBeDefined();
    for (const bad of [code, 'x'.repeat(43), 'short', '']) {
      const res = await postSignin(t, bad, { json: true });
      const text = await res.text();
      expect(res.headers.getSetCookie()).toEqual([]);
      expectEnvelope({ status: res.status, headers: res.headers, text, body: JSON.parse(text) }, 400, 'invalid_signin_code');
      expect(leaksIn(text, [code])).toEqual([]);
    }
  });

  it('refuses a code after its 15 minutes (the server clock moved on)', async () => {
    const code = codeOf(await signinLink(t));
    offsetMs = 15 * 60_000 + 1_000;
    try {
      const res = await postSignin(t, code);
      expect(res.status).toBe(400);
      expect(res.headers.getSetCookie()).toEqual([]);
    } finally {
      offsetMs = 0;
    }
    // Within its 15 minutes a code still works.
    const fresh = codeOf(await signinLink(t));
    offsetMs = 14 * 60_000;
    try {
      expect((await postSignin(t, fresh)).status).toBe(303);
    } finally {
      offsetMs = 0;
    }
  });

  it('sends you on to a same-origin next, never to another site', async () => {
    const go = async (next: string) => (await postSignin(t, codeOf(await signinLink(t)), { next })).headers.get('location');
    expect(await go('/boards/eng?assignee=me')).toBe('/boards/eng?assignee=me');
    expect(await go('//evil.example/x')).toBe('/');
    expect(await go('https://evil.example/')).toBe('/');
    expect(await go('/\\evil.example')).toBe('/');
    expect(await go('/\t/evil.example')).toBe('/');
    // Dot segments that normalise to a protocol-relative path (//evil.example) are another site too.
    for (const next of ['/.//evil.example/', '/..//evil.example/', '/x/../..//evil.example', '/%2e//evil.example']) expect(await go(next), next).toBe('/');
    expect(await go('/boards/./eng/../eng')).toBe('/boards/eng');
  });

  it("is taken only from tack's own pages: another Origin, a cross-site fetch or no Origin at all is refused and burns nothing", async () => {
    const code = codeOf(await signinLink(t));
    const cases: Parameters<typeof postSignin>[2][] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: null },
      { headers: { 'sec-fetch-site': 'cross-site' } },
      { origin: 'http://evil.example', json: true },
    ];
    for (const c of cases) {
      const res = await postSignin(t, code, c);
      expect(res.status, JSON.stringify(c)).toBe(403);
      expect(res.headers.getSetCookie()).toEqual([]);
      if (c!.json) expect(((await res.json()) as { code: string }).code).toBe('cross_site_request');
    }
    // A browser that sends no Origin but says same-origin (a form under a no-referrer policy) is fine.
    const res = await postSignin(t, code, { origin: 'null', headers: { 'sec-fetch-site': 'same-origin' } });
    expect(res.status).toBe(303);
  });

  it('signs in two browsers with two codes as two sessions', async () => {
    const a = await signIn(t);
    const b = await signIn(t);
    expect(a.cookie).not.toBe(b.cookie);
    const list = await a.request('GET', '/v1/sessions');
    const current = list.body.data.filter((s: { current: boolean }) => s.current);
    expect(current).toHaveLength(1);
  });
});

describe('behind HTTPS (APP_URL https://…)', () => {
  it('makes https links, sets the cookie Secure, and asks browsers to stay on HTTPS', async () => {
    const secure = await startTestServer({ APP_URL: 'https://tack.example.com/' });
    try {
      const link = await signinLink(secure);
      expect(link).toMatch(/^https:\/\/tack\.example\.com\/signin\?code=/);
      // The browser's Origin is APP_URL's (a proxy in front speaks plain HTTP to tack).
      const res = await postSignin(secure, codeOf(link), { origin: 'https://tack.example.com' });
      expect(res.status).toBe(303);
      expect(res.headers.getSetCookie()[0]).toMatch(/; Secure/);
      const page = await fetch(`${secure.url}/boards`);
      expect(page.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
      expect(page.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
    } finally {
      await secure.close();
    }
  });
});
