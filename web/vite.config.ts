import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// `npm run dev`: the app on Vite's dev server, talking to a running tack (TACK_URL).
const tack = process.env.TACK_URL ?? 'http://127.0.0.1:3000';
// tack refuses cookie writes from another origin, so the proxy presents tack's own.
const toTack = {
  target: tack,
  changeOrigin: true,
  configure(proxy: { on(event: 'proxyReq', fn: (req: { setHeader(name: string, value: string): void }) => void): void }) {
    proxy.on('proxyReq', (req) => req.setHeader('origin', new URL(tack).origin));
  },
};

const VENDOR_GROUPS: [string, RegExp][] = [
  ['vendor', /node_modules[\\/](react|react-dom|scheduler|use-sync-external-store|@tanstack[\\/](react-router|router-core|history|store|react-store|query-core|react-query)|openapi-fetch)[\\/]/],
  // The app's own small modules most pages share (the API client, its errors, dates): one file
  // with the shell rather than a handful of tiny ones per page.
  ['app', /web[\\/]src[\\/](api[\\/]|lib[\\/](dates|relative-date|people|may-write)\.|ui[\\/](icons|error-panel|field-errors|page-title)\.)/],
  // The card's Markdown (marked and its renderer), one file of its own whatever else the
  // description and the timeline share: the first-load test looks for it by name.
  ['markdown', /(node_modules[\\/]marked[\\/]|web[\\/]src[\\/]pages[\\/]card[\\/]markdown\.tsx)/],
];

/**
 * Each script and style sheet also as `.br` (brotli, best) and `.gz` (gzip -9) beside it: tack
 * serves those to browsers that accept them (src/http/web-app.ts, `preCompressed`), smaller
 * than compressing on each request can afford and with no work per request.
 */
function precompress(): Plugin {
  return {
    name: 'tack-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const out of Object.values(bundle)) {
        if (!/\.(js|css)$/.test(out.fileName)) continue;
        const body = Buffer.from(out.type === 'chunk' ? out.code : out.source);
        const file = join(options.dir!, out.fileName);
        writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), precompress()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // Inline nothing: the CSP allows scripts and styles from our own origin only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    // One manifest (dist/web/.vite/manifest.json) says which files each page loads: the
    // first-load budget test (test/web-first-load.test.ts) and the server's preloads read it.
    manifest: true,
    rolldownOptions: {
      output: {
        // Libraries every page runs, in chunks of their own: they change less often than the
        // app, so a deploy leaves them in the browser's cache (hashed, cached for a year).
        // React Aria is left to the default splitting, so a page loads only the parts it uses.
        codeSplitting: {
          groups: VENDOR_GROUPS.map(([name, test], i) => ({ name, test, priority: VENDOR_GROUPS.length - i })),
        },
      },
    },
  },
  server: { proxy: { '/v1': toTack, '/signin': toTack, '/signout': toTack, '/p/': toTack } },
});
