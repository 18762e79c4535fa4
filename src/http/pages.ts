import cookie from '@fastify/cookie';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Security headers of the pages' responses. Scripts only from tack itself (no inline script,
 * no eval). Styles also allow inline: libraries of accessible primitives inject `<style>`
 * elements; user text is rendered as text, never as markup. `same-origin` referrers, so
 * the app's own form posts keep their `Origin` while other sites learn nothing.
 */
export function helmetOptions(secure: boolean): FastifyHelmetOptions {
  return {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(secure ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: secure ? { maxAge: 31_536_000 } : false,
  };
}

export interface PagesOptions {
  /** Reached over HTTPS: ask browsers to keep to it (HSTS, upgrade-insecure-requests), cookies Secure. */
  secure: boolean;
}

/**
 * What every page a browser opens shares (the web app, sign-in, Slack's connect page): the
 * cookie parser and the security headers. Registered at the top of the pages' own scope, so
 * the page plugins registered after it in that scope get both, and /v1 (which reads its
 * session cookie itself, cookie-auth.ts) pays for no cookie or header hooks.
 */
async function pages(app: FastifyInstance, options: PagesOptions): Promise<void> {
  await app.register(cookie);
  await app.register(helmet, helmetOptions(options.secure));
}

export const pagesPlugin = fp(pages, { name: 'tack-pages', fastify: '5.x' });
