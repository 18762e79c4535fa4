import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, signInWith, signinLink } from './helpers/browser.js';
import { member, memberWithToken } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * The web app shows the rules the API gives and works none out itself (contract §9): which day
 * it is and what is overdue (getMe's `today`, each todo's `due_state`), what the caller may do
 * with members (`abilities`), and a board's gate for the caller (listBoardMoves), whatever the
 * browser's own zone or the board's cards. A card is created in its column in one write.
 */

/** 23:30 on the 16th in UTC, 08:30 on the 17th in Tokyo. */
const NOW = new Date('2026-01-16T23:30:00Z');
const SHOTS = join(import.meta.dirname, '..', '.perf', 'shots');

let t: TestServer;
let browser: Browser;
const ids: Record<string, string> = {};

async function must(method: string, path: string, body?: unknown, token?: string) {
  const res = await t.api(method, path, { ...(body === undefined ? {} : { body }), ...(token ? { token } : {}) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

beforeAll(async () => {
  t = await startTestServer({}, { clock: () => NOW });
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
  // Kenji set no zone of his own: outside Slack his days are UTC's.
  const kenji = await memberWithToken(t, { name: 'Kenji Sato', role: 'member' }, { name: 'kenji', scopes: ['read', 'write'] });
  ids.kenji = kenji.id;
  const token = kenji.token;
  for (const [title, due_on] of [
    ['Renew the certificate', '2026-01-15'],
    ['Send the invoice', '2026-01-16'],
    ['Book the venue', '2026-01-17'],
  ]) {
    await must('POST', '/v1/todos', { title, due_on }, token);
  }
  ids.viewer = (await member(t, { name: 'Vera Viewer', role: 'viewer' })).id;
  await must('POST', '/v1/boards', { name: 'Operations', slug: 'ops', ref_prefix: 'OPS', gated: true });
  await must('POST', '/v1/boards', { name: 'Design', slug: 'design', ref_prefix: 'DES' });
  // The gated board's only card is done: a sample card would say `done` is "allowed" (it is its state).
  await must('POST', '/v1/cards', { board: 'ops', title: 'Rotate the keys', workflow_status: 'done', due_on: '2026-01-10' });
  await must('POST', '/v1/cards', { board: 'design', title: 'Due today in UTC', due_on: '2026-01-16' });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A browser in `timezoneId` whose clock says NOW, signed in as the member. */
async function signedIn(memberId: string | undefined, timezoneId: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ timezoneId, viewport: { width: 1280, height: 800 } });
  await context.clock.setFixedTime(NOW);
  const page = await context.newPage();
  await signInWith(page, await signinLink(t.api, memberId));
  return { context, page };
}

const groupOf = async (page: Page, title: string) => page.locator('section[data-group]', { has: page.locator('li.todo', { hasText: title }) }).getAttribute('data-group');

describe('days from the API, not the browser', { timeout: 90_000 }, () => {
  it("groups a Tokyo browser's todos by the member's day (UTC, as they set no zone), and calls nothing overdue that is not", async () => {
    const me = await must('GET', '/v1/me');
    expect(me.today).toBe('2026-01-16');
    const { context, page } = await signedIn(ids.kenji, 'Asia/Tokyo');
    await page.goto(`${t.url}/todos`);
    await page.locator('li.todo', { hasText: 'Book the venue' }).waitFor();
    expect(await groupOf(page, 'Renew the certificate')).toBe('Overdue');
    expect(await groupOf(page, 'Send the invoice')).toBe('Today');
    expect(await groupOf(page, 'Book the venue')).toBe('This week');
    expect(await page.getByText('Dates in UTC.').count()).toBe(1);
    expect(await page.locator('li.todo', { hasText: 'Send the invoice' }).locator('.chip.danger').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'todos-tokyo-browser.png'), fullPage: true });

    // A card due on the member's today is not overdue on the board either.
    await page.goto(`${t.url}/boards/design`);
    const tile = page.locator('article.tile', { hasText: 'Due today in UTC' });
    await tile.waitFor();
    expect(await tile.locator('.chip.danger').count()).toBe(0);
    // Said as people say it, from the member's today; the date itself on hover.
    expect(await tile.locator('.chip time').textContent()).toBe('Today');
    expect(await tile.locator('.chip time').getAttribute('title')).toBe('Due Friday, January 16, 2026');
    await context.close();
  });
});

describe('the board’s gate for the caller', { timeout: 90_000 }, () => {
  it('shows a viewer "Locked for you" on a gated board whose only card is done, and no Add card; an owner "Gated"', async () => {
    const viewer = await signedIn(ids.viewer, 'UTC');
    await viewer.page.goto(`${t.url}/boards/ops`);
    const badge = viewer.page.getByTestId('done-gate');
    await waitFor('the gate for the viewer', async () => (await badge.count()) === 1 && (await badge.innerText()).includes('Locked for you'));
    await viewer.page.locator('article.tile', { hasText: 'Rotate the keys' }).waitFor();
    expect(await viewer.page.getByRole('button', { name: /^\+ Add card/ }).count()).toBe(0);
    await viewer.page.screenshot({ path: join(SHOTS, 'board-gate-viewer.png') });
    await viewer.context.close();

    const owner = await signedIn(undefined, 'UTC');
    await owner.page.goto(`${t.url}/boards/ops`);
    await owner.page.getByRole('button', { name: /Add card to Done/ }).waitFor();
    expect(await owner.page.getByTestId('done-gate').innerText()).toContain('Gated');
    expect(await owner.page.getByTestId('done-gate').innerText()).not.toContain('Locked');
    await owner.context.close();
  });
});

describe('a card created in a column', { timeout: 90_000 }, () => {
  it('is one write with an Idempotency-Key, kept for a retry after the answer was lost: one card, in its column', async () => {
    const { context, page } = await signedIn(undefined, 'UTC');
    const writes: { method: string; url: string; key: string | null; body: string | null }[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/cards') && r.method() !== 'GET') writes.push({ method: r.method(), url: r.url(), key: r.headers()['idempotency-key'] ?? null, body: r.postData() });
    });
    // The first answer is lost on the way back: the card was made, the browser saw a network failure.
    let lost = false;
    await page.route('**/v1/cards', async (route) => {
      if (route.request().method() !== 'POST' || lost) return route.continue();
      lost = true;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.goto(`${t.url}/boards/design`);
    await page.getByRole('button', { name: /Add card to In review/ }).click();
    await page.getByLabel('Title of a new card in In review').fill('Review the palette');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.locator('.toast-error').waitFor();
    // The title stays for another try: the same submit, the same key.
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const column = page.locator('section.column[data-status="in_review"]');
    await column.locator('article.tile', { hasText: 'Review the palette' }).waitFor();

    expect(writes.map((w) => w.method)).toEqual(['POST', 'POST']);
    expect(writes[0]!.key).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(writes[1]!.key).toBe(writes[0]!.key);
    expect(JSON.parse(writes[0]!.body!)).toMatchObject({ board: 'design', title: 'Review the palette', workflow_status: 'in_review' });
    const cards = (await must('GET', '/v1/cards?board=design&limit=100')).data.filter((c: { title: string }) => c.title === 'Review the palette');
    expect(cards).toHaveLength(1);
    expect(cards[0].workflow_status).toBe('in_review');
    await context.close();
  });
});

describe('members as abilities say', { timeout: 90_000 }, () => {
  it('offers the last owner no change of their own role; with a second owner it does', async () => {
    const { context, page } = await signedIn(undefined, 'UTC');
    const ownRole = async () => {
      await page.goto(`${t.url}/settings/members`);
      await page.getByRole('list', { name: 'Members' }).waitFor();
      await page.waitForLoadState('networkidle');
      const me = await must('GET', '/v1/me');
      return page.locator(`li[data-member="${me.member.id}"] .select-button`).isEnabled();
    };
    expect(await ownRole()).toBe(false);
    const second = await member(t, { name: 'Olive Second', role: 'owner' });
    expect(await ownRole()).toBe(true);
    await must('DELETE', `/v1/members/${second.id}`);
    await context.close();
  });
});
