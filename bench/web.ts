/**
 * `npm run bench:web`: the web app in headless Chromium against tack on a scratch database.
 *  - first-load JavaScript of the board page (every script the browser fetched to show
 *    /boards/{slug}, gzip -9 sizes), against the budget of 150 KB;
 *  - a board of 500 cards: time from navigation start until all 500 cards are on screen
 *    and their drag handles answer the keyboard (cold cache, then warm), budget 1 s.
 */
import { launchChromium, signedInContext } from '../test/helpers/browser.js';
import { startTestServer } from '../test/helpers/server.js';
import { recordScriptSizes } from './script-sizes.js';

const CARDS = 500;

interface PageDocument {
  querySelectorAll(selector: string): { length: number };
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
}
const server = await startTestServer();
const browser = await launchChromium();
try {
  const api = server.api;
  await api('POST', '/v1/boards', { body: { name: 'Big board', slug: 'big', ref_prefix: 'BIG' } });
  const me = (await api('GET', '/v1/me')).body;
  const statuses = ['backlog', 'in_progress', 'in_review', 'done'];
  let next = 0;
  const worker = async () => {
    while (next < CARDS) {
      const i = next++;
      const card = await api('POST', '/v1/cards', {
        body: { board: 'big', title: `Card number ${i + 1} with a title of ordinary length`, assignee_ids: i % 3 === 0 ? [me.member.id] : [], criteria: i % 2 ? ['One', 'Two'] : [] },
      });
      const status = statuses[i % 4]!;
      if (status !== 'backlog') await api('PATCH', `/v1/cards/${card.body.id}`, { body: { workflow_status: status } });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));

  const { context, page } = await signedInContext(browser, api);
  const scripts = recordScriptSizes(page);
  // Cold: a fresh page load with an empty cache for the app's files.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  const loads: number[] = [];
  for (let run = 0; run < 6; run++) {
    await page.goto(`${server.url}/boards/big`, { waitUntil: 'commit' });
    const ms = await page.waitForFunction(
      (n) => {
        // Runs in the page; this file is typed for Node, without the DOM.
        const doc = (globalThis as unknown as { document: PageDocument }).document;
        if (doc.querySelectorAll('.tile').length !== n) return false;
        return doc.querySelector('.drag-handle')?.getAttribute('aria-roledescription') === 'draggable' ? performance.now() : false;
      },
      CARDS,
      { polling: 'raf', timeout: 30_000 },
    );
    loads.push(Math.round((await ms.jsonValue()) as number));
    if (run === 0) {
      const total = [...scripts.values()].reduce((a, b) => a + b, 0);
      process.stdout.write(`first-load JS of the board: ${(total / 1024).toFixed(1)} KB gzipped in ${scripts.size} files\n`);
      for (const [path, size] of [...scripts].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${(size / 1024).toFixed(1)} KB  ${path}\n`);
    }
  }
  const warm = loads.slice(1).sort((a, b) => a - b);
  process.stdout.write(`${CARDS}-card board interactive: cold ${loads[0]} ms; warm median ${warm[Math.floor(warm.length / 2)]} ms (runs: ${loads.join(', ')})\n`);
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
