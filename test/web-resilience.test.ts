import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signInWith, signinLink } from './helpers/browser.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { seedTeam, type Seeded } from './helpers/web-seed.js';

/**
 * The app never goes blank (issue 32): with tack stopped mid-session it says so in a banner,
 * keeps what was typed, shows a failed page inside the shell (nav kept) and recovers by itself
 * when tack is back; after a deploy (old chunk files gone) it reloads once into the new build.
 */

const BUILD = fileURLToPath(new URL('../dist/web', import.meta.url));
const SHOTS = join(import.meta.dirname, '..', '.perf', 'shots');

let webDir: string;
let t: TestServer;
let current: TestServer;
let port: string;
let browser: Browser;
let seeded: Seeded;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  webDir = mkdtempSync(join(tmpdir(), 'tack-web-'));
  cpSync(BUILD, webDir, { recursive: true });
  t = await startTestServer({}, { webDir });
  current = t;
  port = new URL(t.url).port;
  seeded = await seedTeam(t.api);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (current !== t) await current?.server.close();
  await t?.close();
  rmSync(webDir, { recursive: true, force: true });
});

/** Stops tack (the database stays). */
async function stop(): Promise<void> {
  await current.server.close();
}

/** Starts tack again on the same port and database: to the browser, the same server came back. */
async function restart(): Promise<void> {
  current = await startTestServer({ DATABASE_URL: t.database!.url, PORT: port, TACK_BOOTSTRAP_TOKEN: t.token }, { webDir });
}

const banner = (page: Page) => page.getByTestId('offline-banner');
const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

describe('tack stopped mid-session', { timeout: 120_000 }, () => {
  it('shows the offline banner, keeps the draft and the nav, shows a failed page in the shell, and recovers by itself', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signInWith(page, await signinLink(t.api));
    const ref = seeded.cards.tour!.ref;
    await page.goto(`${t.url}/cards/${ref}`);
    await page.getByRole('heading', { name: /Criteria/ }).waitFor();

    const field = page.getByLabel('New criterion');
    await field.fill('Works offline, then online');
    await stop();
    await field.press('Enter');
    await banner(page).getByText('tack cannot be reached').waitFor();
    await page.locator('.toast', { hasText: 'Could not reach tack' }).waitFor();
    // The page stays, with what was typed.
    expect(await field.inputValue()).toBe('Works offline, then online');
    expect(await mainNav(page).isVisible()).toBe(true);
    expect(await page.locator('#card-title').inputValue()).toContain('Product tour');

    await restart();
    await banner(page).getByText('tack cannot be reached').waitFor({ state: 'detached' });
    await field.press('Enter');
    await page.locator('ul.criteria li', { hasText: 'Works offline, then online' }).waitFor();

    // A page whose code is not loaded yet, asked for while tack is away: an error inside the shell.
    await stop();
    await mainNav(page).getByRole('link', { name: 'Todos' }).click();
    await page.getByTestId('route-error').getByRole('heading', { name: 'This page cannot be loaded right now' }).waitFor();
    expect(await mainNav(page).isVisible()).toBe(true);
    await banner(page).getByText('tack cannot be reached').waitFor();
    await page.screenshot({ path: join(SHOTS, 'offline-route-error.png') });
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

    // tack is back: the page loads by itself.
    await restart();
    await page.getByRole('heading', { level: 1, name: 'Todos' }).waitFor();
    expect(await page.getByTestId('route-error').count()).toBe(0);
    expect(await banner(page).textContent()).toBe('');
    await context.close();
  });
});

/** Renames every asset of the served build (as a new build's hashes would) and rewrites what names them. */
function deployNewBuild(): void {
  const assets = join(webDir, 'assets');
  // The build's compressed twins (x.js.br, x.js.gz) go with the old build: a new one writes its own.
  for (const n of readdirSync(assets)) if (/\.(br|gz)$/.test(n)) rmSync(join(assets, n));
  const names = readdirSync(assets);
  const renamed = new Map(names.map((n) => [n, n.replace(/\.(js|css)$/, 'v2.$1')]));
  const rewrite = (file: string) => {
    let text = readFileSync(file, 'utf8');
    for (const [from, to] of renamed) text = text.split(from).join(to);
    writeFileSync(file, text);
  };
  for (const n of names) if (/\.(js|css)$/.test(n)) rewrite(join(assets, n));
  rewrite(join(webDir, 'index.html'));
  for (const [from, to] of renamed) renameSync(join(assets, from), join(assets, to));
}

describe('a deploy between two page loads', { timeout: 120_000 }, () => {
  it('reloads once into the new build when a page’s old chunk is gone, and does not loop when the new one is missing too', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signInWith(page, await signinLink(current.api));
    await page.goto(`${current.url}/boards/eng`);
    await page.getByRole('heading', { level: 1, name: 'Engineering' }).waitFor();
    let loads = 0;
    page.on('load', () => loads++);
    await page.evaluate('window.__beforeDeploy = true');

    deployNewBuild();
    await mainNav(page).getByRole('link', { name: 'Milestones' }).click();
    await page.getByRole('heading', { level: 1, name: 'Milestones' }).waitFor();
    // It is the new build, loaded by one reload.
    expect(await page.evaluate('window.__beforeDeploy === undefined')).toBe(true);
    expect(loads).toBe(1);
    const script = (await page.evaluate(`document.querySelector('script[type=module][src]').getAttribute('src')`)) as string;
    expect(script).toMatch(/v2\.js$/);
    expect(await page.getByTestId('route-error').count()).toBe(0);

    // A broken deploy (the todos chunk missing from the new build too): one reload, then an error page, no loop.
    const todos = readdirSync(join(webDir, 'assets')).find((n) => /^todos-.*\.js$/.test(n))!;
    rmSync(join(webDir, 'assets', todos));
    await mainNav(page).getByRole('link', { name: 'Todos' }).click();
    await page.getByTestId('route-error').getByRole('heading', { name: 'This page ran into a problem' }).waitFor();
    expect(loads).toBe(2);
    expect(await mainNav(page).isVisible()).toBe(true);
    await context.close();
  });
});
