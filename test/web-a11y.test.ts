import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInContext, signinLink } from './helpers/browser.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

const pages = () => [
  '/boards',
  '/boards/eng',
  `/cards/${fx.seeded.cards.signup!.ref}`,
  '/todos',
  '/snippets',
  `/snippets/${fx.seeded.snippet.slug}`,
  '/milestones',
  '/milestones/M3',
  '/settings',
  '/settings/api-keys',
  '/settings/sessions',
  '/settings/members',
  '/settings/webhooks',
  '/no-such-page',
];

describe('accessibility (axe-core), signed in', { timeout: 180_000 }, () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious or critical violation on any page, ${scheme}`, async () => {
      const { context, page } = await signedInContext(fx.browser, fx.server.api, { colorScheme: scheme });
      const found: string[] = [];
      for (const path of pages()) {
        await page.goto(`${fx.server.url}${path}`);
        await page.locator('main h1').first().waitFor({ state: 'attached' });
        await page.waitForLoadState('networkidle');
        const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
        for (const v of result.violations) {
          if (v.impact === 'serious' || v.impact === 'critical') {
            found.push(`${path}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
          }
        }
      }
      expect(found).toEqual([]);
      await context.close();
    });
  }
});

describe('accessibility (axe-core), the sign-in page tack renders itself', { timeout: 60_000 }, () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious or critical violation, ${scheme}`, async () => {
      const context = await fx.browser.newContext({ colorScheme: scheme });
      const page = await context.newPage();
      await page.goto(await signinLink(fx.server.api));
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      const found = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
      expect(found).toEqual([]);
      await context.close();
    });
  }
});

describe('reflow at 375 px (WCAG 1.4.10)', { timeout: 180_000 }, () => {
  it('scrolls no page sideways, shows every main link whole and no text field squeezed', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api, { width: 375, height: 800 });
    const found: string[] = [];
    for (const path of pages()) {
      await page.goto(`${fx.server.url}${path}`);
      await page.locator('main h1').first().waitFor({ state: 'attached' });
      await page.waitForLoadState('networkidle');
      // A string, run in the page: the tests are type-checked without the DOM library.
      const { scrollWidth, cut, cramped } = (await page.evaluate(`({
        scrollWidth: document.documentElement.scrollWidth,
        cut: Array.from(document.querySelectorAll('.mainnav a'))
          .filter((a) => a.getBoundingClientRect().right > document.documentElement.clientWidth)
          .map((a) => a.textContent),
        // A text field squeezed beside others is too narrow to see what one types.
        cramped: Array.from(document.querySelectorAll('main input:not([type]), main input[type="text"], main input[type="search"]'))
          .filter((i) => i.offsetParent !== null && i.getBoundingClientRect().width < 100)
          .map((i) => i.id || i.name || i.placeholder),
      })`)) as { scrollWidth: number; cut: string[]; cramped: string[] };
      if (scrollWidth > 375) found.push(`${path}: page is ${scrollWidth} px wide`);
      if (cut.length > 0) found.push(`${path}: nav links cut at the edge: ${cut.join(', ')}`);
      if (cramped.length > 0) found.push(`${path}: text fields under 100 px wide: ${cramped.join(', ')}`);
    }
    expect(found).toEqual([]);
    await context.close();
  });
});
