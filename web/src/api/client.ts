import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './openapi';
import { answerMeansUnreachable, reportReachable, reportUnreachable } from './connectivity';
import { apiErrorFrom, ApiError } from './errors';
import { goToSignIn } from './signin-return';

/**
 * The /v1 client, typed from the OpenAPI document the server itself serves (generated at
 * build time). The browser sends the session cookie; tack checks the Origin of writes.
 */
export const api = createClient<paths>({ baseUrl: '/v1', credentials: 'same-origin' });

const signInOn401: Middleware = {
  onResponse({ response }) {
    if (response.status === 401) goToSignIn();
    return undefined;
  },
};
/** Every answer says whether tack is there (the offline banner); a failed fetch says it is not. */
const connectivity: Middleware = {
  async onResponse({ response }) {
    if (await answerMeansUnreachable(response)) reportUnreachable();
    else reportReachable();
    return undefined;
  },
  onError() {
    reportUnreachable();
    return undefined;
  },
};
api.use(signInOn401, connectivity);

interface FetchOutcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a call, or an ApiError carrying the envelope's user_message and request_id. */
export async function ok<T>(call: Promise<FetchOutcome<T>>): Promise<T> {
  let outcome: FetchOutcome<T>;
  try {
    outcome = await call;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError('network_error', 0, 'Could not reach tack. Check your connection and try again.', undefined);
  }
  if (!outcome.response.ok) throw apiErrorFrom(outcome.error, outcome.response);
  return outcome.data as T;
}

/** Every page of a list, following next_cursor (boards and members are short; a board's cards may be hundreds). */
export async function allPages<T>(page: (cursor: string | undefined) => Promise<{ data: T[]; next_cursor?: string }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const res = await page(cursor);
    out.push(...res.data);
    cursor = res.next_cursor;
  } while (cursor);
  return out;
}
