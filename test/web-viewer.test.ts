import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { signedInContext } from './helpers/browser.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/**
 * A viewer sees a read-only app (contract §13, issue 32): what getMe's scopes and abilities
 * and listBoardMoves allow, nothing else: no drag handles, no edit fields, no create or
 * delete buttons on the board, card and todos pages.
 */

let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

/** Every control in the page's main region a person could change something with. */
async function editableControls(page: Page): Promise<string[]> {
  return (await page.evaluate(`Array.from(document.querySelectorAll(
      'main input, main textarea, main select, main [contenteditable="true"], main [role="spinbutton"], main .drag-handle, main button, main [role="button"]'
    ))
    .filter((e) => e.offsetParent !== null || e.getAttribute('type') === 'checkbox')
    .map((e) => e.tagName.toLowerCase() + ' ' + (e.getAttribute('aria-label') || e.textContent || e.id).trim())`)) as string[];
}

describe('a viewer', { timeout: 120_000 }, () => {
  it('sees the board, a card and the todos with no editable control and no drag handle', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api, { memberId: fx.seeded.members.linus });
    await page.goto(`${fx.server.url}/boards/eng`);
    await page.locator('article.tile').first().waitFor();
    await page.waitForLoadState('networkidle');
    // The filters are links and one select of what to show: reading, not changing.
    const board = (await editableControls(page)).filter((c) => c !== 'select All milestones' && !c.startsWith('select '));
    expect(board).toEqual([]);
    expect(await page.locator('.drag-handle').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Add card/ }).count()).toBe(0);
    expect(await page.locator('article.tile').count()).toBeGreaterThan(3);

    const card = fx.seeded.cards.signup!;
    await page.goto(`${fx.server.url}/cards/${card.ref}`);
    await page.getByRole('heading', { level: 1, name: /Sign-up form validates/ }).waitFor();
    await page.getByRole('heading', { name: /^Criteria/ }).waitFor();
    await page.waitForLoadState('networkidle');
    // The branch name is read-only text with a copy button: copying changes nothing.
    expect((await editableControls(page)).filter((c) => c !== 'input card-branch-name' && c !== 'button Copy branch name')).toEqual([]);
    expect(await page.locator('#card-branch-name').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByTestId('card-facts').innerText()).toContain('In progress');
    expect(await page.locator('ul.criteria li').count()).toBe(3);

    await page.goto(`${fx.server.url}/todos`);
    await page.getByRole('heading', { level: 1, name: 'Todos' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('form', { name: 'Add a todo' }).count()).toBe(0);
    expect(await editableControls(page)).toEqual([]);
    await context.close();
  });

  it('a member still gets the handles, fields and buttons (the check above is not vacuous)', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api, { memberId: fx.seeded.members.grace });
    await page.goto(`${fx.server.url}/boards/design`);
    await page.locator('.drag-handle').first().waitFor();
    expect(await page.getByRole('button', { name: /Add card/ }).count()).toBeGreaterThan(0);
    await page.goto(`${fx.server.url}/cards/${fx.seeded.cards.signup!.ref}`);
    await page.locator('#card-title').waitFor();
    await page.getByRole('button', { name: 'Delete card' }).waitFor();
    expect((await editableControls(page)).length).toBeGreaterThan(5);
    await context.close();
  });
});
