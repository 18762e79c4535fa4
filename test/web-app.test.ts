import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserLabel } from '../web/src/lib/user-agent.js';
import { collectPageErrors, signedInContext, signInWith, signinLink } from './helpers/browser.js';
import { waitFor } from './helpers/wait.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

const cardStatus = async (ref: string) => (await fx.server.api('GET', `/v1/cards/${ref}`)).body.workflow_status as string;

async function column(page: Page, status: string) {
  return page.locator(`section.column[data-status="${status}"]`);
}

describe('web app in Chromium', { timeout: 90_000 }, () => {
  it('signs in with a one-time link, and refuses the link once used', async () => {
    const context = await fx.browser.newContext();
    const page = await context.newPage();
    const url = await signinLink(fx.server.api);
    // Opening the link signs nobody in: it shows a button.
    await page.goto(url);
    expect(await page.context().cookies()).toEqual([]);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${fx.server.url}/boards/eng`);
    await page.getByRole('heading', { level: 1, name: 'Engineering' }).waitFor();

    // Once used, opening it says so, with no button to press.
    const other = await fx.browser.newContext();
    const second = await other.newPage();
    const response = await second.goto(url);
    expect(response?.status()).toBe(400);
    await second.getByRole('heading', { level: 1, name: 'This sign-in link does not work' }).waitFor();
    expect(await second.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
    expect((await other.cookies()).find((c) => c.name === 'tack_session')).toBeUndefined();
    await context.close();
    await other.close();
  });

  it('sends a signed-out visitor to sign in and back to the page they asked for', async () => {
    const context = await fx.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${fx.server.url}/milestones/M3`);
    await page.waitForURL(/\/signin\?next=%2Fmilestones%2FM3/);
    await page.goto(await signinLink(fx.server.api));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${fx.server.url}/milestones/M3`);
    await context.close();
  });

  it('moves a card across columns by dragging, and the same way by keyboard', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const ref = fx.seeded.cards.sso!.ref;
    await page.goto(`${fx.server.url}/boards/eng`);
    const handle = page.locator(`button[data-card="${ref}"]`);
    const target = await column(page, 'in_review');
    const from = (await handle.boundingBox())!;
    const to = (await target.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + ((to.x + to.width / 2 - from.x) * i) / 10, from.y + ((to.y + 60 - from.y) * i) / 10);
    await page.mouse.up();
    await waitFor('the card to be in review (API)', async () => (await cardStatus(ref)) === 'in_review');
    await target.locator(`button[data-card="${ref}"]`).waitFor();

    // Keyboard: focus the handle, space picks up, right arrow goes one column on, space drops.
    await page.locator(`button[data-card="${ref}"]`).focus();
    await page.keyboard.press('Space');
    await page.locator('.tile-overlay').waitFor();
    // Picked up once the board has measured its columns: the card is over its own column.
    await page.locator('section.column.over[data-status="in_review"]').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.locator('section.column.over[data-status="done"]').waitFor();
    await page.keyboard.press('Space');
    await waitFor('the card to be done (API)', async () => (await cardStatus(ref)) === 'done');
    await (await column(page, 'done')).locator(`button[data-card="${ref}"]`).waitFor();
    await context.close();
  });

  it('carries the whole card in hand, not a strip the size of its handle', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const ref = fx.seeded.cards.audit!.ref;
    await page.goto(`${fx.server.url}/boards/eng`);
    const handle = page.locator(`button[data-card="${ref}"]`);
    const tile = page.locator('article.tile', { has: handle });
    const before = (await tile.boundingBox())!;
    await handle.focus();
    await page.keyboard.press('Space');
    const overlay = page.locator('.tile-overlay');
    await overlay.waitFor();
    const inHand = (await overlay.boundingBox())!;
    expect(inHand.width).toBeGreaterThan(before.width * 0.9);
    expect(await overlay.innerText()).toContain('Audit log export as CSV');
    await page.keyboard.press('Escape');
    await overlay.waitFor({ state: 'detached' });
    expect(await cardStatus(ref)).toBe('backlog');
    await context.close();
  });

  it('shows the gate on a gated board only, and rolls a refused move back with the API message', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    // A page whose live stream is not connected (yet, or lost): it learns only from the API's answer.
    await context.route('**/v1/events/stream**', (route) => route.abort());
    await page.goto(`${fx.server.url}/boards/eng`);
    await page.getByTestId('done-gate').waitFor();
    expect(await page.getByTestId('done-gate').getAttribute('title')).toMatch(/needs a human/);
    await page.goto(`${fx.server.url}/boards/design`);
    await page.locator('section.column[data-status="done"]').waitFor();
    expect(await page.getByTestId('done-gate').count()).toBe(0);

    // A move the API refuses: the card is deleted behind the app's back; the move is shown,
    // then rolled back, and the envelope's message and request id appear.
    const created = await fx.server.api('POST', '/v1/cards', { body: { board: 'design', title: 'Soon gone' } });
    await page.reload();
    const handle = page.locator(`button[data-card="${created.body.ref}"]`);
    await handle.waitFor();
    await fx.server.api('DELETE', `/v1/cards/${created.body.id}`);
    await handle.focus();
    await page.keyboard.press('Space');
    await page.locator('.tile-overlay').waitFor();
    await page.locator('section.column.over[data-status="backlog"]').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.locator('section.column.over[data-status="in_progress"]').waitFor();
    await page.keyboard.press('Space');
    const toast = page.locator('.toast-error');
    await toast.waitFor();
    expect(await toast.innerText()).toMatch(/Request req_|Request [\w-]+/);
    await context.close();
  });

  it('adds a todo for a criterion, completes it in the todo list, and the criterion is ticked', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const ref = fx.seeded.cards.signup!.ref;
    await page.goto(`${fx.server.url}/cards/${ref}`);
    const row = page.locator('li[data-criterion]').filter({ hasText: 'Screen reader announces it' });
    await row.getByRole('button', { name: '+ Todo' }).click();
    await row.getByRole('link', { name: 'Todo' }).waitFor();
    await page.goto(`${fx.server.url}/todos`);
    const todo = page.locator('li.todo').filter({ hasText: 'Screen reader announces it' });
    // click, not check(): the ticked todo moves to Done as a new element, so Playwright's own
    // look at the old checkbox can miss the change; the Done group below shows it.
    await todo.getByRole('checkbox').click();
    await page.locator('section[data-group="Done"] li.todo').filter({ hasText: 'Screen reader announces it' }).waitFor();
    const criteria = await waitFor('the criterion ticked', async () => {
      const res = await fx.server.api('GET', `/v1/cards/${ref}/criteria`);
      const c = res.body.data.find((x: { title: string }) => x.title === 'Screen reader announces it');
      return c?.done ? c : undefined;
    });
    expect(criteria.todo_id).toMatch(/^todo_/);

    // And a todo typed in the app, due today, lands in Today.
    await page.getByLabel('Todo', { exact: true }).fill('Water the office plants');
    await page.getByRole('button', { name: 'Add todo' }).click();
    await page.locator('section[data-group="Today"] li.todo').filter({ hasText: 'Water the office plants' }).waitFor();
    await context.close();
  });

  it('searches snippets as you type and shows a diff between two versions', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/snippets`);
    await page.getByLabel('Search snippets').fill('webhook');
    await page.waitForURL(/q=webhook/);
    const list = page.getByTestId('snippet-list');
    await waitFor('one result', async () => (await list.locator('li').count()) === 1);
    expect(await list.innerText()).toContain('Webhook payload example');

    await page.goto(`${fx.server.url}/snippets/${fx.seeded.snippet.slug}`);
    const diff = page.getByTestId('diff');
    await diff.waitFor();
    expect(await diff.locator('.add').allInnerTexts()).toContainEqual(expect.stringContaining("and c.workflow_status <> 'done'"));
    expect(await diff.locator('.del').allInnerTexts()).toContainEqual(expect.stringContaining('group by m.name;'));
    // The diff's lines are set like the code above them, the same size.
    const fontSize = (selector: string) => page.locator(selector).first().evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).fontSize);
    expect(await fontSize('[data-testid="diff"] .add')).toBe(await fontSize('[data-testid="snippet-body"] code'));
    await context.close();
  });

  it('creates an API key in the app that then works against /v1', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/settings/api-keys`);
    await page.getByLabel('Name').fill('browser-made key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = await page.getByLabel('New API key').inputValue();
    expect(token).toMatch(/^tack_live_/);
    const res = await fetch(`${fx.server.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const write = await fetch(`${fx.server.url}/v1/todos`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"title":"x"}' });
    expect(write.status).toBe(403); // read scope only
    await context.close();
  });

  it('ends another session from the app, and that browser is refused at once', async () => {
    const a = await signedInContext(fx.browser, fx.server.api);
    const b = await signedInContext(fx.browser, fx.server.api);
    const bCall = () => b.page.evaluate(async () => (await fetch('/v1/me')).status);
    expect(await bCall()).toBe(200);
    const sessions = await b.page.evaluate(async () => (await (await fetch('/v1/sessions')).json()) as { data: { id: string; current: boolean }[] });
    const bId = sessions.data.find((s) => s.current)!.id;
    await a.page.goto(`${fx.server.url}/settings/sessions`);
    await a.page.locator(`li[data-session="${bId}"]`).getByRole('button', { name: 'End' }).click();
    await a.page.getByRole('alertdialog').getByRole('button', { name: 'End session' }).click();
    await waitFor('the session gone from the list', async () => (await a.page.locator(`li[data-session="${bId}"]`).count()) === 0);
    expect(await bCall()).toBe(401);
    await a.context.close();
    await b.context.close();
  });

  it('names each session by its browser and system, with the raw user agent in its details', async () => {
    const safari = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
    const mac = await fx.browser.newContext({ userAgent: safari });
    await signInWith(await mac.newPage(), await signinLink(fx.server.api));
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const sessions = (await page.evaluate(async () => (await (await fetch('/v1/sessions')).json()) as { data: { id: string; current: boolean; user_agent: string }[] })).data;
    const macId = sessions.find((s) => s.user_agent === safari)!.id;
    const ownId = sessions.find((s) => s.current)!.id;
    await page.goto(`${fx.server.url}/settings/sessions`);
    const macRow = page.locator(`li[data-session="${macId}"]`);
    const label = macRow.locator('.session-browser');
    expect(await label.innerText()).toBe('Safari on macOS');
    expect(await label.getAttribute('title')).toBe(safari);
    // The raw string is one click away, for telling two browsers of the same kind apart.
    expect(await macRow.getByText(safari).isVisible()).toBe(false);
    await macRow.getByText('Browser details').click();
    expect(await macRow.getByText(safari).isVisible()).toBe(true);
    // Debian's Chromium, headless, is this browser.
    expect(await page.locator(`li[data-session="${ownId}"] .session-browser`).innerText()).toBe('Headless Chrome on Linux');
    await context.close();
    await mac.close();
  });

  it('reads the browsers people use from their user agents', () => {
    const cases: [string | null, string][] = [
      ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0', 'Edge on Windows'],
      ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Linux'],
      ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36', 'Chrome on Android'],
      ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari on iPhone'],
      ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome on macOS'],
      ['curl/8.5.0', 'curl'],
      [null, 'Unknown browser'],
    ];
    for (const [ua, label] of cases) expect(browserLabel(ua), String(ua)).toBe(label);
  });

  it('keeps a criterion beside its box on a phone, buttons below, and ticks it from its title', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api, { width: 375, height: 800 });
    const ref = fx.seeded.cards.invite!.ref;
    await page.goto(`${fx.server.url}/cards/${ref}`);
    const row = page.locator('li[data-criterion]').filter({ has: page.getByText('E-mail invite', { exact: true }) });
    // Measured once the page has settled (the description and the discussion load after the card).
    await row.waitFor();
    await page.waitForLoadState('networkidle');
    const box = (await row.getByRole('checkbox').boundingBox())!;
    const title = (await row.getByText('E-mail invite', { exact: true }).boundingBox())!;
    const rename = (await row.getByRole('button', { name: 'Rename E-mail invite' }).boundingBox())!;
    expect(title.y, 'title on the box line').toBeLessThan(box.y + box.height);
    expect(title.width, 'the title has the row to itself').toBeGreaterThan(250);
    expect(rename.y, 'buttons under the title').toBeGreaterThanOrEqual(title.y + title.height - 1);
    await row.getByText('E-mail invite', { exact: true }).click();
    await waitFor('the criterion ticked', async () => {
      const res = await fx.server.api('GET', `/v1/cards/${ref}/criteria`);
      return res.body.data.find((c: { title: string }) => c.title === 'E-mail invite')?.done === true;
    });
    expect(await row.getByRole('checkbox', { name: 'Done: E-mail invite' }).isChecked()).toBe(true);
    await context.close();
  });

  it('refuses a cross-site write made with the session cookie', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    // Another origin on the same host: the browser sends the cookie (same site), tack must refuse.
    const target = `${fx.server.url}/v1/todos`;
    const evil = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form id="f" method="post" action="${target}" enctype="text/plain"><input name='{"title":"pwned","x":"' value='"}'></form>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const port = (evil.address() as AddressInfo).port;
      await page.goto(`http://127.0.0.1:${port}/`);
      const [response] = await Promise.all([page.waitForResponse((r) => r.url() === target), page.evaluate("document.getElementById('f').submit()")]);
      expect(response.status()).toBe(403);
      expect(JSON.parse(await response.text()).code).toBe('cross_site_request');
      const todos = await fx.server.api('GET', '/v1/todos?limit=100');
      expect(todos.body.data.map((t: { title: string }) => t.title)).not.toContain('pwned');
    } finally {
      evil.close();
      await context.close();
    }
  });

  it('shows the milestone status the API gives', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/milestones/M3`);
    const status = page.getByTestId('milestone-status');
    await status.waitFor();
    const api = (await fx.server.api('GET', '/v1/milestones/M3/status')).body;
    const read = async (id: string) => {
      const el = page.getByTestId(id).locator('[data-done]');
      return { done: Number(await el.getAttribute('data-done')), total: Number(await el.getAttribute('data-total')) };
    };
    expect(await read('cards-progress')).toEqual({ done: api.cards_done, total: api.cards_total });
    expect(await read('criteria-progress')).toEqual({ done: api.criteria_done, total: api.criteria_total });
    expect(api.cards_total).toBeGreaterThan(0);
    await context.close();
  });

  it('runs no script typed into any field', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const errors = collectPageErrors(page);
    const payloads = ['<script>window.__xss=1</script>', '<img src=x onerror="window.__xss=1">', 'javascript:window.__xss=1'];
    await page.goto(`${fx.server.url}/boards/design`);
    // The form stays open after each card, for the next one.
    await page.getByRole('button', { name: /Add card to Backlog/ }).click();
    for (const p of payloads) {
      await page.getByLabel('Title of a new card in Backlog').fill(p);
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.locator('.tile-title', { hasText: p }).waitFor();
    }
    await page.goto(`${fx.server.url}/todos`);
    for (const p of payloads) {
      await page.getByLabel('Todo', { exact: true }).fill(p);
      await page.getByRole('button', { name: 'Add todo' }).click();
      await page.locator('li.todo', { hasText: p }).first().waitFor();
    }
    await page.goto(`${fx.server.url}/snippets`);
    await page.getByRole('button', { name: 'New snippet' }).click();
    await page.getByLabel('Name').fill(payloads[1]!);
    await page.getByLabel('Tags (comma separated)').fill(payloads[2]!);
    await page.getByLabel('Body').fill(`${payloads[0]}\n${payloads[1]}`);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('snippet-body').waitFor();
    expect(await page.getByTestId('snippet-body').innerText()).toContain('<script>');
    const snippetPage = new URL(page.url()).pathname;
    await page.goto(`${fx.server.url}/settings`);
    await page.getByLabel('Name').fill(payloads[1]!);
    await page.getByRole('button', { name: 'Save profile' }).click();
    for (const path of ['/boards/design', '/todos', '/snippets', snippetPage, '/settings/members']) {
      await page.goto(`${fx.server.url}${path}`);
      await page.waitForLoadState('networkidle');
      expect(await page.locator('main img[src="x"], main script').count()).toBe(0);
      expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
