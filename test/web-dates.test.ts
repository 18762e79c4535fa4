import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { formatDate } from '../web/src/lib/dates.js';
import { absoluteDay, relativeDay } from '../web/src/lib/relative-dates.js';
import { signedInContext } from './helpers/browser.js';
import { dayOffset } from './helpers/web-seed.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/** Dates as people say them (issue 32, item 12), from the API's `today`, never the browser's clock. */

describe('relativeDay', () => {
  const today = '2026-11-26'; // a Thursday
  it.each([
    ['2026-11-26', 'Today'],
    ['2026-11-27', 'Tomorrow'],
    ['2026-11-25', 'Yesterday'],
    ['2026-11-30', 'Mon'],
    ['2026-12-02', 'Wed'],
    ['2026-12-03', 'in 7 days'],
    ['2026-12-26', 'in 30 days'],
    ['2026-11-23', '3 days ago'],
    ['2027-01-10', 'Jan 10, 2027'],
    ['2026-12-28', 'Dec 28'],
  ])('%s is %s', (date, said) => {
    expect(relativeDay(date, today)).toBe(said);
  });
  it('says the date in full on hover', () => {
    expect(absoluteDay('2026-11-30')).toBe('Monday, November 30, 2026');
  });
});

let fx: WebFixture;
describe('date chips in the app', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    fx = await startWebFixture();
  }, 120_000);
  afterAll(async () => fx?.close());

  it("says Tomorrow on the board from tack's today even when the browser's clock is years off, the full date on hover", async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.clock.setFixedTime(new Date('2031-06-15T12:00:00Z'));
    await page.goto(`${fx.server.url}/boards/design`);
    const chip = page.locator('.tile', { hasText: 'Dark theme contrast pass' }).locator('time');
    await chip.waitFor();
    expect(await chip.textContent()).toBe('Tomorrow');
    expect(await chip.getAttribute('title')).toBe(`Due ${absoluteDay(dayOffset(1))}`);
    expect(await chip.getAttribute('datetime')).toBe(dayOffset(1));
    await context.close();
  });

  it('groups todos without a date apart from later ones, and links a todo back to its Slack message', async () => {
    const permalink = 'https://example.slack.com/archives/C1/p1700000000000100';
    await fx.server.api('POST', '/v1/todos', { body: { title: 'Answer the thread about invoices', source_url: permalink } });
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/todos`);
    const noDate = page.getByRole('region', { name: /^No date/ });
    await noDate.waitFor();
    expect(await noDate.textContent()).toContain('Read the Postgres 17 release notes');
    const later = page.getByRole('region', { name: /^Later/ });
    expect(await later.textContent()).toContain('Draft the GA announcement');
    expect(await later.textContent()).not.toContain('Read the Postgres 17 release notes');
    expect(await later.locator('li', { hasText: 'Draft the GA announcement' }).locator('time').textContent()).toBe('in 20 days');
    const link = page.getByRole('link', { name: 'Slack message this todo came from' });
    expect(await link.getAttribute('href')).toBe(permalink);
    await context.close();
  });

  it("shows no date before getMe's today has arrived, so none changes its wording once shown", async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    // getMe answers 1.5 s after the page's other reads: every date must still read first as it reads last.
    await page.route(
      (url) => url.pathname === '/v1/me',
      async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await route.continue();
      },
    );
    const firstRead = async (path: string, locator: Locator) => {
      await page.goto(`${fx.server.url}${path}`);
      await locator.waitFor();
      return locator.textContent();
    };
    expect(await firstRead('/boards/design', page.locator('.tile', { hasText: 'Dark theme contrast pass' }).locator('time'))).toBe('Tomorrow');
    expect(await firstRead('/todos', page.locator('li', { hasText: 'Draft the GA announcement' }).locator('time'))).toBe('in 20 days');
    const m3Ends = `ends ${formatDate(dayOffset(5), dayOffset(0))} · 5 days left`;
    expect(await firstRead('/milestones', page.locator('.milestone-tile', { hasText: 'Sprint 3' }).locator('p.muted'))).toBe(m3Ends);
    expect(await firstRead('/milestones/M3', page.locator('.page-head + p.muted'))).toBe(m3Ends);
    await context.close();
  });
});
