import type { Scenario } from '../scenario.js';

/** GET /v1/me with a valid token: auth, rate limit, one query, the envelope machinery. */
export const me: Scenario = {
  name: 'me',
  async setup(ctx) {
    return [{ name: 'GET /v1/me', url: `${ctx.url}/v1/me`, headers: { authorization: `Bearer ${ctx.token}` } }];
  },
};
