import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, signedInContext } from './helpers/browser.js';
import { waitFor } from './helpers/wait.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/**
 * The card page's description and timeline (contract §11): the description's Markdown is
 * rendered with no raw HTML and no link but http, https and mailto, its mentions as names; a comment added in the
 * page shows in the timeline beside a move made by another client through /v1.
 */

let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

const HOSTILE = [
  '## Plan',
  '',
  '<script>window.__pwned = true</script>',
  '',
  '<img src=x onerror="window.__pwned = true">',
  '',
  '[click me](javascript:window.__pwned=true) and [docs](https://example.com/docs) and [mail](mailto:a@example.com)',
].join('\n');

describe('the card page', { timeout: 120_000 }, () => {
  it('renders the description inert, and one timeline of comments and moves made elsewhere', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    const errors = collectPageErrors(page);
    const card = fx.seeded.cards.invite!;
    expect((await fx.server.api('PATCH', `/v1/cards/${card.id}`, { body: { description: HOSTILE } })).status).toBe(200);
    await page.goto(`${fx.server.url}/cards/${card.ref}`);
    const description = page.getByTestId('card-description');
    await description.getByRole('heading', { name: 'Plan' }).waitFor();

    // Raw HTML is text, not elements; the javascript: link is no link; http and mailto are.
    expect(await description.locator('script, img').count()).toBe(0);
    expect(await description.textContent()).toContain('<script>window.__pwned = true</script>');
    expect(await description.getByText('click me').evaluate((el) => el.closest('a')?.getAttribute('href') ?? null)).toBeNull();
    expect(await description.getByRole('link', { name: 'docs' }).getAttribute('href')).toBe('https://example.com/docs');
    expect(await description.getByRole('link', { name: 'mail' }).getAttribute('href')).toBe('mailto:a@example.com');
    await description.getByText('click me').click();
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: boolean }).__pwned ?? false)).toBe(false);

    // A mention in the description (stored as @mem_…) shows the member's name, not the id.
    const members = (await fx.server.api('GET', '/v1/members?limit=100')).body.data as { id: string; name: string }[];
    const other = members.find((m) => m.name !== 'Owner') ?? members[0]!;
    expect((await fx.server.api('PATCH', `/v1/cards/${card.id}`, { body: { description: `${HOSTILE}\n\nOver to @${other.id} for review` } })).status).toBe(200);
    await page.reload();
    await description.getByText('for review').waitFor();
    expect(await description.textContent()).toContain(`Over to @${other.name} for review`);
    expect(await description.textContent()).not.toContain(other.id);

    // Editing the description: the picker inserts a mention at the cursor and does not end the edit; leaving saves it once.
    const section = page.locator('.card-description');
    await section.getByRole('button', { name: 'Edit' }).click();
    const field = section.getByLabel('Description (Markdown)');
    await field.press('End');
    await field.press('Control+End');
    await field.pressSequentially(' cc');
    // As a person does: the picker takes the focus (the field is left for it), then a member is chosen.
    const picker = section.getByLabel('Mention a member');
    await picker.focus();
    await picker.selectOption(other.id);
    await field.waitFor();
    expect(await field.inputValue()).toMatch(new RegExp(`for review cc @${other.id} $`));
    await page.locator('#description-heading').click();
    await description.getByText(`cc @${other.name}`).waitFor();
    expect((await fx.server.api('GET', `/v1/cards/${card.id}`)).body.description).toMatch(new RegExp(`for review cc @${other.id}\\s*$`));

    // A comment from the page, mentioning a member with the picker.
    const box = page.getByLabel('Add a comment');
    await box.fill('Shipping it, ');
    await page.getByLabel('Mention a member').selectOption(other.id);
    await box.press('End');
    await box.pressSequentially('please review');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    const timeline = page.getByTestId('timeline');
    await timeline.getByTestId('comment').filter({ hasText: 'please review' }).waitFor();
    const stored = (await fx.server.api('GET', `/v1/cards/${card.id}/comments`)).body.data;
    expect(stored.at(-1).body).toBe(`Shipping it, @${other.id} please review`);
    // The mention shows the member's name, not the id.
    expect(await timeline.getByTestId('comment').last().textContent()).toContain(`@${other.name}`);

    // A move by another client through /v1 joins the timeline after the comment (a reload, or the event stream).
    expect((await fx.server.api('PATCH', `/v1/cards/${card.id}`, { body: { workflow_status: 'in_review' } })).status).toBe(200);
    await page.reload();
    await waitFor('the move in the timeline', async () => (await timeline.locator('.timeline-event[data-type="card.moved"]').count()) > 0);
    const items = await timeline.locator(':scope > li').evaluateAll((els) => els.map((el) => el.getAttribute('data-type') ?? 'comment'));
    expect(items.indexOf('card.moved', items.indexOf('comment'))).toBeGreaterThan(items.indexOf('comment'));
    expect(await timeline.locator('.timeline-event[data-type="card.moved"]').last().textContent()).toMatch(/\(API\) moved this from .* to In review/);
    expect(errors).toEqual([]);
    await context.close();
  });
});
