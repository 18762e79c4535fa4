import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, signedInContext } from './helpers/browser.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/** The command palette (⌘K) over `search`, its commands, and the keyboard shortcuts (issue 32, item 10). */

let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

async function open(path: string, colorScheme: 'light' | 'dark' = 'light') {
  const { context, page } = await signedInContext(fx.browser, fx.server.api, { colorScheme });
  const errors = collectPageErrors(page);
  await page.goto(`${fx.server.url}${path}`);
  await page.locator('main h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  return { context, page, errors };
}

const palette = (page: Page) => page.getByRole('dialog', { name: 'Search or run a command' });

describe('command palette', { timeout: 120_000 }, () => {
  it('opens with Ctrl+K and finds a snippet while its first word is half typed', async () => {
    const { context, page, errors } = await open('/boards/eng');
    await page.keyboard.press('Control+k');
    await expect.poll(() => palette(page).isVisible()).toBe(true);
    const input = page.getByRole('combobox', { name: 'Search or run a command' }).or(page.getByRole('searchbox', { name: 'Search or run a command' }));
    await expect.poll(() => input.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement)).toBe(true);
    await page.keyboard.type('overd');
    const hit = page.getByRole('menuitem', { name: /Overdue cards by assignee/ });
    await hit.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/snippets\/overdue-cards-by-assignee/);
    await expect.poll(() => palette(page).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('moves a card to a state listCardMoves allows, and offers no other', async () => {
    const ref = fx.seeded.cards.tour!.ref; // in review, on the gated ENG board
    const { context, page } = await open('/boards/eng');
    await page.getByRole('button', { name: /Search/ }).click();
    await palette(page).waitFor();
    await page.keyboard.type(`move ${ref.toLowerCase()} to `);
    await page.getByRole('menuitem', { name: new RegExp(`Move ${ref} to Done`) }).waitFor();
    const moves = await page.getByRole('menuitem', { name: new RegExp(`^Move ${ref} to`) }).allTextContents();
    expect(moves.some((m) => m.includes('to In review'))).toBe(false); // where it already is
    await page.keyboard.type('prog');
    const item = page.getByRole('menuitem', { name: new RegExp(`Move ${ref} to In progress`) });
    await item.waitFor();
    await expect.poll(() => page.getByRole('menuitem', { name: new RegExp(`^Move ${ref} to`) }).count()).toBe(1);
    await item.click();
    await page.getByText(`Moved ${ref} to In progress`).waitFor();
    await expect.poll(async () => (await fx.server.api('GET', `/v1/cards/${ref}`)).body.workflow_status).toBe('in_progress');
    await fx.server.api('PATCH', `/v1/cards/${ref}`, { body: { workflow_status: 'in_review' } });
    await context.close();
  });

  it('has no axe violation with the palette open, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page } = await open('/boards/eng', scheme);
      await page.keyboard.press('Control+k');
      await palette(page).waitFor();
      await page.keyboard.type('sign');
      await page.getByRole('menuitem', { name: /Sign-up form/ }).first().waitFor();
      // Once the answer to the whole word is in (the results stop changing under the check).
      await page.locator('.palette-dialog [role="status"]', { hasText: /\d+ results/ }).waitFor();
      await page.keyboard.press('ArrowDown');
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
      expect(result.violations.map((v) => `${scheme} ${v.id}: ${v.help} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
      await context.close();
    }
  });
});

describe('keyboard shortcuts', { timeout: 120_000 }, () => {
  it('never fire while typing in a field', async () => {
    const { context, page } = await open('/todos');
    const title = page.locator('#todo-title');
    await title.click();
    await page.keyboard.type('c/?jk');
    expect(await title.inputValue()).toBe('c/?jk');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await context.close();
  });

  it('/ opens the palette, ? lists the shortcuts, J and K move between cards', async () => {
    const { context, page } = await open('/boards/eng');
    await page.keyboard.press('/');
    await palette(page).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => palette(page).count()).toBe(0);

    await page.keyboard.press('Shift+?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    expect(await help.textContent()).toContain('Next card');
    await page.keyboard.press('Escape');
    await expect.poll(() => help.count()).toBe(0);

    const titles = await page.locator('.tile-title').allTextContents();
    expect(titles.length).toBeGreaterThan(2);
    const focused = () => page.evaluate<string>('document.activeElement?.textContent ?? ""');
    await page.keyboard.press('j');
    await expect.poll(focused).toBe(titles[0]);
    await page.keyboard.press('j');
    await expect.poll(focused).toBe(titles[1]);
    await page.keyboard.press('k');
    await expect.poll(focused).toBe(titles[0]);
    await context.close();
  });

  it('C opens the board’s new card form, with the focus in its title', async () => {
    const { context, page } = await open('/boards/eng');
    await page.keyboard.press('c');
    await expect.poll(() => page.evaluate<string>('document.activeElement?.id ?? ""')).toMatch(/^new-/);
    await context.close();
  });
});
