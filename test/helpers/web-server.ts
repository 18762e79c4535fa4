import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.js';
import { startTestServer, type TestServer } from './server.js';
import { seedTeam, type Seeded } from './web-seed.js';

const INDEX = fileURLToPath(new URL('../../dist/web/index.html', import.meta.url));

export interface WebFixture {
  server: TestServer;
  browser: Browser;
  seeded: Seeded;
  close(): Promise<void>;
}

/** tack on a fresh Postgres database, seeded with a small team, and Debian's Chromium. */
export async function startWebFixture(): Promise<WebFixture> {
  if (!existsSync(INDEX)) throw new Error('dist/web is not built: run `npm run build` first (npm install does it).');
  const server = await startTestServer();
  const seeded = await seedTeam(server.api);
  const browser = await launchChromium();
  return {
    server,
    browser,
    seeded,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
