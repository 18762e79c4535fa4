import { gzipSync } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * The scripts a page fetches from now on, by path, each gzip -9 size in bytes: first-load
 * JavaScript as issue 32's budget counts it (whatever the server itself compresses with).
 */
export function recordScriptSizes(page: Page): Map<string, number> {
  const scripts = new Map<string, number>();
  page.on('response', async (res) => {
    if (res.request().resourceType() !== 'script') return;
    try {
      scripts.set(new URL(res.url()).pathname, gzipSync(await res.body(), { level: 9 }).length);
    } catch {
      // A redirect has no body.
    }
  });
  return scripts;
}

/** Issue 32's budget for every route's first-load JavaScript, gzipped. */
export const FIRST_LOAD_BUDGET_KB = 150;

export interface FirstLoad {
  route: string;
  /** gzip -9 bytes of every script fetched, by path. */
  scripts: Map<string, number>;
  kb: number;
}

/**
 * A route's first-load JavaScript as the browser counts it: a fresh page with the cache
 * off opens `baseUrl + route` in the signed-in `context`, waits for its heading and then
 * for the network to be idle (the toast region and the live updates load on idle; the card
 * page's Markdown once the card is there), and sums every script it fetched.
 */
export async function measureFirstLoad(context: BrowserContext, baseUrl: string, route: string, ready?: (page: Page) => Promise<unknown>): Promise<FirstLoad> {
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const scripts = recordScriptSizes(page);
    await page.goto(`${baseUrl}${route}`);
    await page.locator('main h1').first().waitFor({ state: 'attached' });
    if (ready) await ready(page);
    await page.waitForLoadState('networkidle');
    // A script requested just before idle may still be reading its body.
    await page.waitForTimeout(200);
    const bytes = [...scripts.values()].reduce((a, b) => a + b, 0);
    return { route, scripts, kb: bytes / 1024 };
  } finally {
    await page.close();
  }
}
