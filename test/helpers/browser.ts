import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Api } from './server.js';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
}

/** A member's one-time sign-in link, made with a token (POST /v1/members/{id}/signin-links). */
export async function signinLink(api: Api, memberId?: string, token?: string): Promise<string> {
  const id = memberId ?? (await api('GET', '/v1/me', token === undefined ? {} : { token })).body.member.id;
  const res = await api('POST', `/v1/members/${id}/signin-links`, token === undefined ? {} : { token });
  if (res.status !== 201) throw new Error(`signin-links answered ${res.status}: ${res.text}`);
  return res.body.url as string;
}

/** Opens a sign-in link and presses its Sign in button, as a person would; waits for the app. */
export async function signInWith(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/signin')), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** A fresh browser context signed in as the member (the owner by default). */
export async function signedInContext(
  browser: Browser,
  api: Api,
  options: { memberId?: string; colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    timezoneId: 'UTC',
  });
  const page = await context.newPage();
  await signInWith(page, await signinLink(api, options.memberId));
  return { context, page };
}

/** Fails the test on any script error in the page (an XSS payload that ran would throw or alert). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  // Markup that got rendered would try to run its handler; the CSP blocks it and says so.
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) errors.push(`csp: ${m.text()}`);
  });
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return errors;
}
