import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
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

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // Inline nothing: the CSP allows scripts and styles from our own origin only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: { proxy: { '/v1': toTack, '/signin': toTack, '/signout': toTack, '/p/': toTack } },
});
