/**
 * A request URL's path as the router matches it: without the query, percent-escapes decoded
 * (the router takes `/%76%31/me` for `/v1/me`). What decides whether a request is under /v1
 * (rate limited, never the web app) must read it the same way.
 */
export function requestPath(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    // Not a valid escape: the router does not decode it either.
    return path;
  }
}
