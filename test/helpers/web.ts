import { expect } from 'vitest';
import { apiClient, type ApiResponse, type TestServer } from './server.js';

/** A sign-in link for a member, made over /v1 with `token` (the owner's by default). */
export async function signinLink(t: TestServer, memberId?: string, token: string = t.token): Promise<string> {
  const id = memberId ?? (await t.api('GET', '/v1/me', { token })).body.member.id;
  const res = await t.api('POST', `/v1/members/${id}/signin-links`, { token });
  expect(res.status, res.text).toBe(201);
  return res.body.url;
}

export function codeOf(link: string): string {
  return new URL(link).searchParams.get('code')!;
}

export interface PostSigninOptions {
  /** Sent as JSON instead of a form. */
  json?: boolean;
  /** The Origin header; tack's own by default, null for none. */
  origin?: string | null;
  headers?: Record<string, string>;
  next?: string;
}

/** POST /signin as the page's form (or a JSON client) would, without following the redirect. */
export function postSignin(t: TestServer, code: string, options: PostSigninOptions = {}): Promise<Response> {
  const fields: Record<string, string> = { code, ...(options.next !== undefined ? { next: options.next } : {}) };
  const origin = options.origin === undefined ? t.url : options.origin;
  const headers: Record<string, string> = {
    'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded',
    ...(origin !== null ? { origin } : {}),
    ...options.headers,
  };
  const body = options.json ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
  return fetch(`${t.url}/signin`, { method: 'POST', headers, body, redirect: 'manual' });
}

/** The `tack_session` cookie a response set, as `name=value` for a Cookie header. */
export function sessionCookieOf(res: Response): string | undefined {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('tack_session='));
  return set?.split(';')[0];
}

export interface Browser {
  /** `tack_session=…` */
  cookie: string;
  /** A request with the cookie (redirects followed); writes carry tack's own Origin unless `origin` says otherwise. */
  request<T = any>(method: string, path: string, options?: { body?: unknown; origin?: string | null; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
}

/** A browser signed in as the member (the owner by default), through a link and POST /signin. */
export async function signIn(t: TestServer, memberId?: string, token: string = t.token): Promise<Browser> {
  const res = await postSignin(t, codeOf(await signinLink(t, memberId, token)));
  expect(res.status).toBe(303);
  const cookie = sessionCookieOf(res);
  expect(cookie).toBeDefined();
  return browser(t, cookie!);
}

export function browser(t: TestServer, cookie: string): Browser {
  const api = apiClient(t.url, null);
  return {
    cookie,
    request(method, path, options = {}) {
      const write = !['GET', 'HEAD', 'OPTIONS'].includes(method);
      const origin = options.origin === undefined ? (write ? t.url : null) : options.origin;
      const headers: Record<string, string> = { cookie, ...(origin !== null ? { origin } : {}), ...options.headers };
      return api(method, path, { body: options.body, headers });
    },
  };
}
