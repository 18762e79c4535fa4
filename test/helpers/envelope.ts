import { expect } from 'vitest';
import type { ApiResponse } from './server.js';

/**
 * Asserts the error envelope of contract §5: the status, `{code, http_status, user_message,
 * request_id}` (plus `errors` on a 422), and `request_id` equal to the `X-Request-Id` header.
 */
export function expectEnvelope(res: ApiResponse, status: number, code?: string): void {
  const where = `${status} expected, got ${res.status}: ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBe(status);
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  expect(res.body, where).toEqual(
    expect.objectContaining({
      code: expect.stringMatching(/^[a-z][a-z0-9_]*$/),
      http_status: status,
      user_message: expect.any(String),
      request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/),
    }),
  );
  expect(res.body.user_message.length, where).toBeGreaterThan(0);
  expect(res.body.request_id, where).toBe(res.headers.get('x-request-id'));
  if (code !== undefined) expect(res.body.code, where).toBe(code);
  if (status === 422) {
    expect(Array.isArray(res.body.errors), where).toBe(true);
    for (const e of res.body.errors) {
      expect(e, where).toEqual({ field: expect.any(String), code: expect.any(String), message: expect.any(String) });
    }
  }
}

/**
 * What an error body must never carry: stack frames, source locations, SQL, file paths, or
 * one of the given secrets. Returns the reasons found (empty when clean).
 */
export function leaksIn(text: string, secrets: string[] = []): string[] {
  const found: string[] = [];
  const checks: [string, RegExp][] = [
    ['stack frame', /\bat [^\s]+ \(|\n\s+at /],
    ['source location', /\.(ts|js|mjs|cjs):\d*/],
    ['SQL', /\b(select|insert|update|delete from|where|relation|column)\b/i],
    ['file path', /\/work\b|\/home\b|node_modules|\/usr\/|\/tmp\//],
  ];
  for (const [what, re] of checks) if (re.test(text)) found.push(`${what} (${re})`);
  for (const s of secrets) if (s && text.includes(s)) found.push('a secret');
  return found;
}
