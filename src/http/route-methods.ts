import type { FastifyInstance } from 'fastify';

interface KnownRoute {
  re: RegExp;
  methods: string[];
}

/**
 * The methods a path is answered with, for 405 answers with `Allow` on a known path asked
 * with another method (contract §5). Gathered from every route as it is registered
 * (`onRoute`), so the operations, the OpenAPI document, health checks, public links,
 * sign-in, the app's pages and /mcp all answer alike, and no list here can drift from them.
 * Catch-all routes (`/*`: the app's fallback, static files) are left out: a path only they
 * answer is unknown (404), not a known path with a wrong method.
 *
 * Call it before any route is registered.
 */
export function routeMethods(app: FastifyInstance): (url: string) => string[] {
  const known: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    known.push({ re: patternOf(route.url), methods });
  });
  return (url) => {
    const path = url.split('?')[0] ?? url;
    const methods = new Set<string>();
    for (const route of known) if (route.re.test(path)) for (const m of route.methods) methods.add(m);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  };
}

/** A Fastify path (`/cards/:id`, `::` a literal colon) as a regular expression; a trailing slash is ignored, as the router does. */
function patternOf(url: string): RegExp {
  const source = url
    .replace(/\/+$/, '')
    .split('::')
    .map((piece) => piece.split(/:\w+/).map(escapeRegExp).join('[^/]+'))
    .join(':');
  return new RegExp(`^${source}/?$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
