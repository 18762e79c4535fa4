import { afterAll, beforeAll, expect, it } from 'vitest';
import { collectPageErrors, signedInContext } from './helpers/browser.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/**
 * The card page's GitHub side (issue 31, contract §12): the pull requests that name the card,
 * each with its state as GitHub last said it, newest first; the card's `branch_name` with a
 * Copy button that puts it on the clipboard; and a plain line when no pull request names it.
 * The links are stored as a delivery stores them (test/github-webhooks.test.ts covers how).
 */
let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

it('shows the pull requests with their state, copies the branch name, and says when there are none', { timeout: 120_000 }, async () => {
  const card = fx.seeded.cards.invite!;
  const other = fx.seeded.cards.signup!;
  const full = (await fx.server.api('GET', `/v1/cards/${card.id}`)).body as { branch_name: string };
  const { org_id } = await fx.server.server.db.db.selectFrom('cards').select('org_id').where('id', '=', card.id).executeTakeFirstOrThrow();
  const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
  const pr = (number: number, title: string, state: 'open' | 'draft' | 'merged' | 'closed', updated: string) => ({
    org_id,
    card_id: card.id,
    repository: 'acme/web',
    number,
    url: `https://github.com/acme/web/pull/${number}`,
    title,
    state,
    author_login: 'octo-ann',
    updated_at: updated,
  });
  await fx.server.server.db.db
    .insertInto('github_links')
    .values([pr(7, 'Merged fix', 'merged', minutesAgo(30)), pr(8, 'Draft idea', 'draft', minutesAgo(20)), pr(9, 'Open change', 'open', minutesAgo(10))])
    .execute();

  const { context, page } = await signedInContext(fx.browser, fx.server.api);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: fx.server.url });
  const errors = collectPageErrors(page);
  await page.goto(`${fx.server.url}/cards/${card.ref}`);
  const list = page.getByTestId('card-links');
  await list.waitFor();
  const rows = await list.locator('li').evaluateAll((items) =>
    items.map((li) => ({ text: li.querySelector('a')?.textContent, href: li.querySelector('a')?.getAttribute('href'), state: li.querySelector('.chip')?.textContent })),
  );
  expect(rows).toEqual([
    { text: 'acme/web#9 Open change', href: 'https://github.com/acme/web/pull/9', state: 'Open' },
    { text: 'acme/web#8 Draft idea', href: 'https://github.com/acme/web/pull/8', state: 'Draft' },
    { text: 'acme/web#7 Merged fix', href: 'https://github.com/acme/web/pull/7', state: 'Merged' },
  ]);

  expect(await page.getByLabel('Branch name').inputValue()).toBe(full.branch_name);
  await page.getByRole('button', { name: 'Copy branch name' }).click();
  await page.getByText('Branch name copied').waitFor();
  // The page's navigator (the test's TypeScript has no DOM library).
  expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(full.branch_name);

  await page.goto(`${fx.server.url}/cards/${other.ref}`);
  await page.getByText(`No pull request names ${other.ref} yet.`).waitFor();
  expect(await page.getByTestId('card-links').count()).toBe(0);
  expect(errors).toEqual([]);
  await context.close();
});
