import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';

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
