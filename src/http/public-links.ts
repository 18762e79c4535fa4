import type { FastifyInstance } from 'fastify';
import type { Db } from '../domain/context.js';
import { readPublicSnippet } from '../domain/snippets/links.js';
import { PER_ADDRESS } from './rate-limit.js';

/** The path part of PUBLIC_BASE_URL (`http://host/p` → `/p`, `https://s.example.com` → ``). */
export function publicLinkPath(publicBaseUrl: string): string {
  const path = new URL(publicBaseUrl).pathname.replace(/\/+$/, '');
  // The router matches decoded paths.
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/**
 * `GET {PUBLIC_BASE_URL}/{link}` without auth: the snippet's current body as inert text.
 * Every type but json is `text/plain`, and `nosniff` plus a sandboxing CSP keep a browser
 * from running an html snippet. `no-store`, so no cache keeps a rotated or deleted link
 * alive; `no-referrer`, so the link does not leak to sites the text links to. A dead link
 * is 404 `snippet_not_found` in the envelope. Counted per client address (no token), so a
 * flood of guesses is refused with 429 before it costs a query.
 */
export async function publicLinks(app: FastifyInstance, deps: { db: Db; publicBaseUrl: string }): Promise<void> {
  // `:` starts a parameter in a Fastify path; `::` is a literal colon.
  const base = publicLinkPath(deps.publicBaseUrl).replace(/:/g, '::');
  app.get<{ Params: { link: string } }>(`${base}/:link`, { config: PER_ADDRESS }, async (request, reply) => {
    const snippet = await readPublicSnippet(deps.db, request.params.link);
    reply
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', 'sandbox')
      .header('Cache-Control', 'no-store')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Robots-Tag', 'noindex, nofollow')
      .header('Content-Type', snippet.type === 'json' ? 'application/json' : 'text/plain; charset=utf-8');
    // A Buffer, so Fastify sends the type as set: `application/json` carries no charset (RFC 8259).
    return reply.send(Buffer.from(snippet.body, 'utf8'));
  });
}
