import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notBuiltPage } from './html-pages.js';
import { appHtmlReader } from './page-preloads.js';
import { requestPath } from './request-path.js';
import { sendHtml } from './signin.js';

/**
 * The page URLs of the web app (contract §8): a reload of any of them answers the app's HTML,
 * and the app's router shows the page.
 */
export const PAGE_ROUTES = [
  '/',
  '/boards',
  '/boards/:slug',
  '/cards/:ref',
  '/todos',
  '/snippets',
  '/snippets/:id',
  '/milestones',
  '/milestones/:ref',
  '/settings',
  '/settings/api-keys',
  '/settings/sessions',
  '/settings/members',
] as const;

/** Paths that are never the app, whatever the request accepts. */
const NEVER_APP = ['/v1', '/p', '/slack', '/mcp', '/assets'];

/** `dist/web` of this checkout, from `src/http` (tsx) or `dist/src/http` (built). */
export function defaultWebDir(): string {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  return basename(root) === 'dist' ? join(root, 'web') : join(root, 'dist', 'web');
}

export interface WebAppOptions {
  /** The app's build: index.html and hashed files under assets/. */
  webDir: string;
  /** The path of public snippet links (`/p` by default), never the app either. */
  publicLinkPath: string;
}

/**
 * Serves the built app: hashed files under `/assets/` cached for a year as immutable (their
 * .br or .gz twin, compressed at build time, to a browser that accepts it), the
 * page URLs as `index.html` with preloads of the page's own code (page-preloads.ts;
 * revalidated on every load, by ETag), other files at the top of the build
 * (favicon) revalidated too. Any other GET whose `Accept` names `text/html` gets the app as
 * well (it shows its own not-found page), except under /v1, /p, /slack, /mcp and /assets;
 * everything else falls through to the JSON 404. Without a build, pages answer a short HTML
 * page saying so. Registered inside the pages' scope (pages.ts), whose security headers it
 * sends: `reply.helmet()` where a route turns them off for its 404s.
 */
export async function webApp(app: FastifyInstance, opts: WebAppOptions): Promise<void> {
  await app.register(fastifyStatic, {
    root: join(opts.webDir, 'assets'),
    prefix: '/assets/',
    index: false,
    list: false,
    maxAge: '365d',
    immutable: true,
    // The build writes each script and style sheet as .br and .gz too (web/vite.config.ts).
    preCompressed: true,
    suppressWarning: true,
  });

  const appHtml = appHtmlReader(opts.webDir);
  const sendApp = (request: FastifyRequest, reply: FastifyReply, route?: string) => {
    const page = appHtml(route);
    if (!page) return sendHtml(reply, 200, notBuiltPage());
    reply.header('Cache-Control', 'no-cache').header('ETag', page.etag);
    if (request.headers['if-none-match'] === page.etag) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(page.html);
  };

  for (const url of PAGE_ROUTES) app.get(url, async (request, reply) => sendApp(request, reply, url));

  const neverApp = opts.publicLinkPath === '' ? NEVER_APP : [...NEVER_APP, opts.publicLinkPath];
  app.get('/*', { helmet: false }, async (request, reply) => {
    const path = requestPath(request.url);
    if (neverApp.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return reply.callNotFound();
    const file = topLevelFile(path, opts.webDir);
    if (file) {
      await reply.helmet();
      reply.header('Cache-Control', 'no-cache');
      return reply.sendFile(file, opts.webDir, { cacheControl: false });
    }
    if (!acceptsHtml(request)) return reply.callNotFound();
    await reply.helmet();
    return sendApp(request, reply);
  });
}

/** A file at the top of the build other than index.html (favicon.svg, robots.txt), if it exists. */
function topLevelFile(path: string, webDir: string): string | undefined {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9._-]*\.[A-Za-z0-9]+)$/.exec(path);
  if (!m || m[1] === 'index.html' || dirname(m[1]!) !== '.') return undefined;
  return existsSync(join(webDir, m[1]!)) ? m[1] : undefined;
}

function acceptsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}
