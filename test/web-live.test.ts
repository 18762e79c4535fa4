import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signedInContext } from './helpers/browser.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { seedTeam, type Seeded } from './helpers/web-seed.js';

/**
 * The web app lives on the event stream (issue 29): a change made by another client, through
 * /v1 with a bearer token, shows on the open page within a second, with no reload and no read
 * of the card lists again (the query cache is patched from each event's data); the stream
 * resumes after tack restarts and shows what changed meanwhile.
 */

const INDEX = fileURLToPath(new URL('../dist/web/index.html', import.meta.url));

let t: TestServer;
let current: TestServer;
let port: string;
let browser: Browser;
let seeded: Seeded;
/** Another client of /v1: a bearer token of the same owner, as a script or an agent would hold. */
let other: string;

beforeAll(async () => {
  if (!existsSync(INDEX)) throw new Error('dist/web is not built: run `npm run build` first.');
  t = await startTestServer();
  current = t;
  port = new URL(t.url).port;
  seeded = await seedTeam(t.api);
  other = (await t.api('POST', '/v1/tokens', { body: { name: 'elsewhere', scopes: ['read', 'write'] } })).body.token;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (current !== t) await current?.server.close();
  await t?.close();
});

async function elsewhere(method: string, path: string, body?: unknown) {
  const res = await current.api(method, path, { body, token: other });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

/** Counts the page's reads of card lists (`GET /v1/cards?…`), and every request to /v1. */
function countReads(page: Page) {
  const seen: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.pathname.startsWith('/v1/') && url.pathname !== '/v1/events/stream') seen.push(`${req.method()} ${url.pathname}${url.search}`);
  });
  return {
    cardLists: () => seen.filter((r) => /^GET \/v1\/cards(\?|$)/.test(r)),
    todoLists: () => seen.filter((r) => /^GET \/v1\/todos(\?|$)/.test(r)),
    reset: () => void seen.splice(0),
  };
}

/** Waits until the tab's event stream is open (`<html data-live="open">`). */
const live = (page: Page) => page.locator('html[data-live="open"]').waitFor({ state: 'attached', timeout: 10_000 });
const column = (page: Page, status: string) => page.locator(`section.column[data-status="${status}"]`);
const tile = (page: Page, ref: string) => page.locator(`article.tile[aria-label^="${ref}:"]`);

describe('live updates in Chromium', { timeout: 120_000 }, () => {
  it('moves, adds and removes cards on the open board as another client changes them, without reading the lists again', async () => {
    const { context, page } = await signedInContext(browser, t.api);
    await page.goto(`${t.url}/boards/design`);
    const ref = seeded.cards.icons!.ref;
    await column(page, 'in_progress').locator(tile(page, ref)).waitFor();
    await live(page);
    const reads = countReads(page);

    // Moved by another client: in its new column within a second.
    await elsewhere('PATCH', `/v1/cards/${ref}`, { workflow_status: 'done' });
    await column(page, 'done').locator(tile(page, ref)).waitFor({ timeout: 1_000 });
    expect(await column(page, 'in_progress').locator(tile(page, ref)).count()).toBe(0);

    // Made elsewhere: in its column, first (newest first); deleted elsewhere: gone.
    const made = await elsewhere('POST', '/v1/cards', { board: 'design', title: 'Made by another client', workflow_status: 'in_review' });
    await column(page, 'in_review').locator(tile(page, made.ref)).waitFor({ timeout: 1_000 });
    const dark = seeded.cards.dark!.ref;
    await elsewhere('DELETE', `/v1/cards/${dark}`);
    await tile(page, dark).waitFor({ state: 'detached', timeout: 1_000 });
    // A card of another board does not land on this one.
    const eng = await elsewhere('POST', '/v1/cards', { board: 'eng', title: 'On the other board' });
    await elsewhere('PATCH', `/v1/cards/${made.ref}`, { title: 'Renamed by another client' });
    await page.getByText('Renamed by another client').waitFor({ timeout: 1_000 });
    expect(await tile(page, eng.ref).count()).toBe(0);

    expect(reads.cardLists()).toEqual([]);
    expect(page.url()).toBe(`${t.url}/boards/design`);
    await context.close();
  });

  it('respects the board filter: a card assigned to me elsewhere joins "assigned to me", one unassigned leaves it', async () => {
    const { context, page } = await signedInContext(browser, t.api);
    await page.goto(`${t.url}/boards/eng?assignee=me`);
    const audit = seeded.cards.audit!.ref;
    await tile(page, audit).waitFor();
    await live(page);
    const reads = countReads(page);
    const sso = seeded.cards.sso!.ref;
    expect(await tile(page, sso).count()).toBe(0);
    await elsewhere('PATCH', `/v1/cards/${sso}`, { assignee_ids: [seeded.ownerId] });
    await column(page, 'backlog').locator(tile(page, sso)).waitFor({ timeout: 1_000 });
    await elsewhere('PATCH', `/v1/cards/${audit}`, { assignee_ids: [] });
    await tile(page, audit).waitFor({ state: 'detached', timeout: 1_000 });
    expect(reads.cardLists()).toEqual([]);
    await context.close();
  });

  it('shows a todo completed, added and deleted elsewhere on the open todos page', async () => {
    const { context, page } = await signedInContext(browser, t.api);
    await page.goto(`${t.url}/todos`);
    const group = (name: string) => page.locator(`section[data-group="${name}"]`);
    const todos = (await t.api('GET', '/v1/todos?done=false&limit=100')).body.data as { id: string; title: string }[];
    const retro = todos.find((x) => x.title === 'Book the retro room')!;
    await group('This week').getByText(retro.title).waitFor();
    await live(page);
    const reads = countReads(page);

    await elsewhere('POST', `/v1/todos/${retro.id}/done`);
    await group('Done').getByText(retro.title).waitFor({ timeout: 1_000 });
    expect(await group('This week').getByText(retro.title).count()).toBe(0);
    const added = await elsewhere('POST', '/v1/todos', { title: 'Added by another client' });
    await group('No date').getByText(added.title).waitFor({ timeout: 1_000 });
    await elsewhere('DELETE', `/v1/todos/${added.id}`);
    await page.getByText(added.title).waitFor({ state: 'detached', timeout: 1_000 });

    expect(reads.todoLists()).toEqual([]);
    await context.close();
  });

  it('shows a card changed elsewhere on its open page: its title and a new criterion', async () => {
    const { context, page } = await signedInContext(browser, t.api);
    const ref = seeded.cards.tour!.ref;
    await page.goto(`${t.url}/cards/${ref}`);
    await page.getByRole('heading', { name: /Criteria/ }).waitFor();
    await live(page);
    await elsewhere('PATCH', `/v1/cards/${ref}`, { title: 'Product tour, renamed elsewhere' });
    await expect.poll(() => page.locator('#card-title').inputValue(), { timeout: 1_000 }).toBe('Product tour, renamed elsewhere');
    await elsewhere('POST', `/v1/cards/${ref}/criteria`, { title: 'Added elsewhere' });
    await page.locator('ul.criteria li', { hasText: 'Added elsewhere' }).waitFor({ timeout: 1_000 });
    await context.close();
  });

  it('resumes after tack restarts and shows what changed while it was away', async () => {
    const { context, page } = await signedInContext(browser, t.api);
    await page.goto(`${t.url}/boards/design`);
    const ref = seeded.cards.icons!.ref;
    await tile(page, ref).waitFor();
    await live(page);
    const streams: (string | undefined)[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/v1/events/stream') void req.allHeaders().then((h) => streams.push(h['last-event-id']));
    });
    // A first event, so the stream has an id to resume from.
    await elsewhere('PATCH', `/v1/cards/${ref}`, { workflow_status: 'in_review' });
    await column(page, 'in_review').locator(tile(page, ref)).waitFor({ timeout: 1_000 });

    await current.server.close();
    // Written through another tack process on the same database while this one is away.
    const meanwhile = await startTestServer({ DATABASE_URL: t.database!.url, TACK_BOOTSTRAP_TOKEN: t.token });
    const moved = await meanwhile.api('PATCH', `/v1/cards/${ref}`, { body: { workflow_status: 'backlog' }, token: other });
    expect(moved.status).toBe(200);
    await meanwhile.server.close();
    current = await startTestServer({ DATABASE_URL: t.database!.url, PORT: port, TACK_BOOTSTRAP_TOKEN: t.token });

    await column(page, 'backlog').locator(tile(page, ref)).waitFor({ timeout: 15_000 });
    // It reconnected by itself, with the id of the last event it had (the browser's own retry).
    expect(streams.some((id) => id !== undefined && /^evt_\d+$/.test(id))).toBe(true);
    await live(page);
    // And lives on.
    await elsewhere('PATCH', `/v1/cards/${ref}`, { workflow_status: 'done' });
    await column(page, 'done').locator(tile(page, ref)).waitFor({ timeout: 1_000 });
    await context.close();
  });
});
