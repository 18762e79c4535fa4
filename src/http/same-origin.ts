import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';

export const crossSiteRequest = () =>
  new AppError('cross_site_request', 403, 'This request came from another site; tack only takes signed-in changes from its own pages.');

/** Methods that change nothing; every other one is a write. */
export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/** The origin of a URL (`null` and what does not parse: none). */
export function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * True when a browser sent this request from tack's own pages: `Origin` is APP_URL's origin
 * or the origin the request was addressed to (its Host), and `Sec-Fetch-Site` is not
 * `cross-site`. Without `Origin`, or with `Origin: null` (a form posted under a no-referrer
 * policy), only `Sec-Fetch-Site: same-origin` vouches for it, so a request that says nothing
 * about where it came from is refused.
 */
export function isSameOriginRequest(request: FastifyRequest, appUrl: string): boolean {
  const site = header(request, 'sec-fetch-site');
  if (site === 'cross-site') return false;
  const sent = header(request, 'origin');
  if (sent === undefined || sent === 'null') return site === 'same-origin';
  const origin = originOf(sent);
  if (origin === undefined) return false;
  return origin === originOf(appUrl) || origin === originOf(`${request.protocol}://${request.host}`);
}
