import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { signedInContext } from './helpers/browser.js';
import { waitFor } from './helpers/wait.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';
import { dayOffset } from './helpers/web-seed.js';

/**
 * Edits behave (issue 32): leaving a field saves it and Escape restores it, a date is saved
 * once when complete, Undo after a move, a completion, a deletion and a removed criterion; one
 * selected filter; a keyboard drop keeps the focus; page titles name the page.
 */

let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

const get = async (path: string) => (await fx.server.api('GET', path)).body;

/** PATCHes of cards the page sends, as JSON bodies. */
function cardPatches(page: Page): Record<string, unknown>[] {
  const sent: Record<string, unknown>[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PATCH' && /\/v1\/cards\/[^/]+$/.test(new URL(r.url()).pathname)) sent.push(JSON.parse(r.postData() ?? '{}'));
  });
  return sent;
}

const undo = async (page: Page, text: string | RegExp) => page.locator('.toast', { hasText: text }).getByRole('button', { name: 'Undo' }).click();

describe('leaving saves, Escape restores', { timeout: 120_000 }, () => {
  it('on the card title, a criterion, the new criterion and new card fields, the add-todo field and the todo dialog', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const sent = cardPatches(page);
    const card = fx.seeded.cards.invite!;
    await page.goto(`${fx.server.url}/cards/${card.ref}`);
    const title = page.locator('#card-title');
    await title.waitFor();

    // Card title: Escape puts it back and saves nothing, even when the field is left after.
    await title.click();
    await title.press('End');
    await title.pressSequentially(' XYZ');
    await title.press('Escape');
    expect(await title.inputValue()).toBe('Invite teammates from the empty board');
    await page.getByRole('heading', { name: /^Criteria/ }).click();
    // Leaving saves.
    await title.click();
    await title.press('End');
    await title.pressSequentially(' now');
    await page.getByRole('heading', { name: /^Criteria/ }).click();
    await waitFor('the title saved', async () => (await get(`/v1/cards/${card.id}`)).title === 'Invite teammates from the empty board now');
    expect(sent.filter((b) => 'title' in b)).toEqual([{ title: 'Invite teammates from the empty board now' }]);

    // A criterion: Escape restores, leaving saves.
    const count = (await get(`/v1/cards/${card.id}/criteria`)).data.length;
    const first = (await get(`/v1/cards/${card.id}/criteria`)).data[0];
    await page.getByRole('button', { name: `Rename ${first.title}` }).click();
    const rename = page.locator(`#rename-${first.id}`);
    await rename.pressSequentially(' ESC');
    await rename.press('Escape');
    await rename.waitFor({ state: 'detached' });
    expect(await page.locator(`li[data-criterion="${first.id}"]`).innerText()).toContain(first.title);
    await page.getByRole('button', { name: `Rename ${first.title}` }).click();
    await rename.pressSequentially(' by link');
    await page.getByRole('heading', { name: /^Criteria/ }).click();
    await waitFor('the criterion renamed', async () => (await get(`/v1/cards/${card.id}/criteria`)).data[0].title === `${first.title} by link`);
    expect((await get(`/v1/cards/${card.id}/criteria`)).data.map((c: { title: string }) => c.title)).not.toContain(`${first.title} ESC`);

    // The new criterion field: Escape empties it, nothing added.
    const fresh = page.getByLabel('New criterion');
    await fresh.fill('Half typed');
    await fresh.press('Escape');
    expect(await fresh.inputValue()).toBe('');
    expect((await get(`/v1/cards/${card.id}/criteria`)).data).toHaveLength(count);
    expect((await get(`/v1/cards/${card.id}`)).title).toBe('Invite teammates from the empty board now');

    // The board's new card field: Escape cancels.
    await page.goto(`${fx.server.url}/boards/design`);
    await page.getByRole('button', { name: 'Add card to Backlog' }).click();
    const newCard = page.getByLabel('Title of a new card in Backlog');
    await newCard.fill('Not this one');
    await newCard.press('Escape');
    await newCard.waitFor({ state: 'detached' });
    expect((await get('/v1/cards?board=design&limit=100')).data.map((c: { title: string }) => c.title)).not.toContain('Not this one');

    // Todos: the add field, and the edit dialog (Escape closes it, nothing saved).
    await page.goto(`${fx.server.url}/todos`);
    const add = page.locator('#todo-title');
    await add.fill('Not a todo');
    await add.press('Escape');
    expect(await add.inputValue()).toBe('');
    await page.getByRole('button', { name: 'Edit Book the retro room' }).click();
    const dialogTitle = page.getByRole('dialog').getByLabel('Title');
    await dialogTitle.fill('Book the retro room ESC');
    await dialogTitle.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const todos = (await get('/v1/todos?limit=100')).data.map((t: { title: string }) => t.title);
    expect(todos).toContain('Book the retro room');
    expect(todos).not.toContain('Not a todo');
    expect(todos).not.toContain('Book the retro room ESC');
    await context.close();
  });
});

describe('the card date', { timeout: 120_000 }, () => {
  it('typing the year 2027 digit by digit saves once, the complete date, on leaving; Escape puts the date back', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const sent = cardPatches(page);
    const card = fx.seeded.cards.signup!;
    const before = (await get(`/v1/cards/${card.id}`)).due_on as string;
    await page.goto(`${fx.server.url}/cards/${card.ref}`);
    await page.getByRole('button', { name: /^Due date: .*Change$/ }).click();
    const year = page.getByRole('spinbutton', { name: /year/i });
    await year.click();
    for (const digit of '2027') await year.press(digit);
    expect(sent).toEqual([]);
    await page.getByRole('heading', { name: /^Criteria/ }).click();
    const expected = `2027-${before.slice(5)}`;
    await waitFor('the date saved', async () => (await get(`/v1/cards/${card.id}`)).due_on === expected);
    expect(sent).toEqual([{ due_on: expected }]);

    // Escape while typing: the saved date comes back, nothing sent.
    await year.click();
    for (const digit of '2031') await year.press(digit);
    await year.press('Escape');
    await page.getByRole('heading', { name: /^Criteria/ }).click();
    expect(await year.innerText()).toBe('2027');
    expect(sent).toHaveLength(1);
    await context.close();
  });
});

describe('undo', { timeout: 120_000 }, () => {
  it('undoes a move, removing a criterion, completing a todo and deleting one, each with the inverse call', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const card = fx.seeded.cards.dark!;
    await page.goto(`${fx.server.url}/cards/${card.ref}`);
    await page.getByTestId('status-select').getByRole('button').click();
    await page.getByRole('option', { name: 'In review' }).click();
    await waitFor('moved', async () => (await get(`/v1/cards/${card.id}`)).workflow_status === 'in_review');
    await undo(page, `${card.ref} moved to In review`);
    await waitFor('moved back', async () => (await get(`/v1/cards/${card.id}`)).workflow_status === 'backlog');

    const tour = fx.seeded.cards.tour!;
    const criteria = (await get(`/v1/cards/${tour.id}/criteria`)).data as { title: string; done: boolean }[];
    await page.goto(`${fx.server.url}/cards/${tour.ref}`);
    await page.getByRole('button', { name: `Remove ${criteria[0]!.title}` }).click();
    await waitFor('removed', async () => (await get(`/v1/cards/${tour.id}/criteria`)).data.length === criteria.length - 1);
    await undo(page, `Removed “${criteria[0]!.title}”`);
    await waitFor('back, first and ticked as it was', async () => {
      const now = (await get(`/v1/cards/${tour.id}/criteria`)).data as { title: string; done: boolean }[];
      return now.length === criteria.length && now.map((c) => [c.title, c.done]).join() === criteria.map((c) => [c.title, c.done]).join();
    });

    await page.goto(`${fx.server.url}/todos`);
    const openTodos = async () => ((await get('/v1/todos?done=false&limit=100')).data as { title: string }[]).map((t) => t.title);
    await page.getByRole('checkbox', { name: 'Complete: Renew the TLS certificate' }).click();
    await waitFor('done', async () => !(await openTodos()).includes('Renew the TLS certificate'));
    await undo(page, 'Completed “Renew the TLS certificate”');
    await waitFor('open again', async () => (await openTodos()).includes('Renew the TLS certificate'));

    await page.getByRole('button', { name: 'Delete Read the Postgres 17 release notes' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await waitFor('deleted', async () => !(await openTodos()).includes('Read the Postgres 17 release notes'));
    await undo(page, 'Deleted “Read the Postgres 17 release notes”');
    await waitFor('made again', async () => (await openTodos()).includes('Read the Postgres 17 release notes'));
    await context.close();
  });
});

describe('the board', { timeout: 120_000 }, () => {
  it('marks one assignee filter as current, and keeps the focus on a card dropped by keyboard, announcing the move after tack answers', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/boards/eng?assignee=me`);
    const filters = page.getByRole('group', { name: 'Assignee' });
    await filters.getByRole('link', { name: 'Assigned to me' }).waitFor();
    expect(await filters.locator('[aria-current]').count()).toBe(1);
    expect(await filters.locator('[aria-current="page"]').innerText()).toBe('Assigned to me');
    await filters.getByRole('link', { name: 'Everyone' }).click();
    await page.waitForURL((u) => !u.search.includes('assignee'));
    expect(await filters.locator('[aria-current]').count()).toBe(1);
    expect(await filters.locator('[aria-current="page"]').innerText()).toBe('Everyone');
    expect(await page.title()).toBe('Engineering · tack');

    await page.goto(`${fx.server.url}/boards/design`);
    const ref = fx.seeded.cards.icons!.ref;
    await page.locator(`button[data-card="${ref}"]`).focus();
    await page.keyboard.press('Space');
    await page.locator('section.column.over[data-status="in_progress"]').waitFor();
    // While a card is in hand, the place it left passes contrast.
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await page.keyboard.press('ArrowRight');
    await page.locator('section.column.over[data-status="in_review"]').waitFor();
    await page.keyboard.press('Space');
    await page.getByTestId('move-status').getByText(`${ref} moved to In review.`).waitFor();
    expect((await get(`/v1/cards/${ref}`)).workflow_status).toBe('in_review');
    await waitFor('the focus on the moved card', async () => (await page.evaluate(`document.activeElement?.getAttribute('data-card')`)) === ref);
    expect(await page.locator('section.column[data-status="in_review"]').locator(`button[data-card="${ref}"]`).count()).toBe(1);
    await context.close();
  });
});

/** Serious or critical axe violations on the page as it is now. */
async function axeSerious(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('accessibility in the states these edits open', { timeout: 120_000 }, () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious violation with the delete dialog, the calendar, a select's list or an Undo toast open, ${scheme}`, async () => {
      const { context, page } = await signedInContext(fx.browser, fx.server.api, { colorScheme: scheme });
      await page.goto(`${fx.server.url}/cards/${fx.seeded.cards.audit!.ref}`);
      await page.getByRole('button', { name: 'Delete card' }).click();
      await page.getByRole('alertdialog').waitFor();
      const found = (await axeSerious(page)).map((v) => `dialog: ${v}`);
      await page.keyboard.press('Escape');
      await page.getByRole('alertdialog').waitFor({ state: 'detached' });
      await page.getByRole('button', { name: /^Due date: .*Change$/ }).click();
      await page.getByRole('button', { name: 'Pick due date' }).click();
      await page.getByRole('grid').waitFor();
      found.push(...(await axeSerious(page)).map((v) => `calendar: ${v}`));
      await page.keyboard.press('Escape');
      await page.getByRole('grid').waitFor({ state: 'detached' });
      await page.getByTestId('status-select').getByRole('button').click();
      await page.getByRole('listbox').waitFor();
      found.push(...(await axeSerious(page)).map((v) => `select list: ${v}`));
      // Each run moves the card one column on (the light run leaves it in progress).
      const to = scheme === 'light' ? 'In progress' : 'In review';
      await page.getByRole('option', { name: to }).click();
      await page.locator('.toast', { hasText: `moved to ${to}` }).waitFor();
      found.push(...(await axeSerious(page)).map((v) => `toast: ${v}`));
      expect(found).toEqual([]);
      await context.close();
    });
  }
});

describe('a refused move', { timeout: 120_000 }, () => {
  it('is announced as refused after tack answers, never as moved', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    // A page whose live stream is not connected (yet, or lost): it learns only from the API's answer.
    await context.route('**/v1/events/stream**', (route) => route.abort());
    const created = (await fx.server.api('POST', '/v1/cards', { body: { board: 'design', title: 'Gone before the drop' } })).body;
    await page.goto(`${fx.server.url}/boards/design`);
    const handle = page.locator(`button[data-card="${created.ref}"]`);
    await handle.waitFor();
    // Everything any live region says, as it says it.
    await page.evaluate(`(() => {
      window.__said = [];
      new MutationObserver(() => {
        for (const r of document.querySelectorAll('[aria-live], [role="status"]')) {
          const text = r.textContent.trim();
          if (text && window.__said[window.__said.length - 1] !== text) window.__said.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await fx.server.api('DELETE', `/v1/cards/${created.id}`);
    await handle.focus();
    await page.keyboard.press('Space');
    await page.locator('section.column.over[data-status="backlog"]').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.locator('section.column.over[data-status="in_progress"]').waitFor();
    await page.keyboard.press('Space');
    await page.getByTestId('move-status').getByText(`${created.ref} was not moved`).waitFor();
    const said = (await page.evaluate('window.__said')) as string[];
    expect(said.filter((t) => t.includes('moved to'))).toEqual([]);
    await context.close();
  });
});

describe('pages', { timeout: 120_000 }, () => {
  it('titles name the page; the nav’s Snippets forgets the old search; a bad milestone says so once; milestones by end date', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const card = fx.seeded.cards.signup!;
    await page.goto(`${fx.server.url}/cards/${card.ref}`);
    await waitFor('the card title', async () => (await page.title()) === `${card.ref} Sign-up form validates e-mail… · tack`);
    await page.goto(`${fx.server.url}/todos`);
    await waitFor('the todos title', async () => (await page.title()) === 'Todos · tack');

    await page.goto(`${fx.server.url}/snippets?q=overdue`);
    const box = page.getByRole('searchbox');
    await box.waitFor();
    expect(await box.inputValue()).toBe('overdue');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Snippets' }).click();
    await waitFor('the box emptied', async () => (await box.inputValue()) === '');
    await page.waitForURL((u) => u.pathname === '/snippets' && !u.search.includes('q='));
    expect(new URL(page.url()).search).toBe('');

    await page.goto(`${fx.server.url}/milestones/NOPE`);
    await page.getByRole('alert').first().waitFor();
    const message = (await page.getByRole('alert').first().locator('p').first().innerText()).trim();
    expect(message).toMatch(/milestone/i);
    await page.waitForLoadState('networkidle');
    expect(await page.getByText(message, { exact: true }).count()).toBe(1);

    await fx.server.api('POST', '/v1/milestones', { body: { ref: 'SOON', name: 'Due tomorrow', kind: 'deadline', ends_on: dayOffset(1) } });
    await fx.server.api('POST', '/v1/milestones', { body: { ref: 'OPEN', name: 'No end', kind: 'sprint' } });
    await page.goto(`${fx.server.url}/milestones`);
    await page.locator('.milestone-tile', { hasText: 'No end' }).waitFor();
    const order = await page.locator('.milestone-tile h2 .mono').allInnerTexts();
    expect(order).toEqual(['SOON', 'M3', 'GA', 'OPEN']);
    await context.close();
  });

  it('at 375 px, checkboxes are at least 24 px and icon buttons 44 px', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api, { width: 375, height: 800 });
    const small: string[] = [];
    for (const path of [`/cards/${fx.seeded.cards.tour!.ref}`, '/todos']) {
      await page.goto(`${fx.server.url}${path}`);
      await page.locator('main input[type="checkbox"]').first().waitFor();
      const found = (await page.evaluate(`Array.from(document.querySelectorAll('main input[type="checkbox"], main .icon-button, main .drag-handle'))
        .filter((e) => e.offsetParent !== null)
        .map((e) => { const r = e.getBoundingClientRect(); const min = e.matches('input') ? 24 : 44; return r.width < min || r.height < min ? (e.getAttribute('aria-label') || e.textContent) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height) : null; })
        .filter(Boolean)`)) as string[];
      small.push(...found.map((f) => `${path}: ${f}`));
    }
    expect(small).toEqual([]);
    await context.close();
  });
});
