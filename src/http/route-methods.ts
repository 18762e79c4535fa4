import type { FastifyInstance } from 'fastify';

interface KnownRoute {
  re: RegExp;
  methods: string[];
}

/**
 * The methods a path is answered with, for 405 answers with `Allow` on a known path asked
 * with another method (contract §5). Gathered from the routes as they are registered
 * (`onRoute`), so the operations, the OpenAPI document, /mcp and the health checks answer
 * alike, and no list here can drift from them. Only routes whose path `answers405` are
 * counted: pages, public links and Slack answer other methods with 404, as a path that is
 * not there. Catch-all routes (`/*`) are never counted.
 *
 * Call it before any route is registered.
 */
export function routeMethods(app: FastifyInstance, answers405: (url: string) => boolean): (url: string) => string[] {
  const known: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*') || !answers405(route.url)) return;
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
