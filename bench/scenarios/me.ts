import type { Scenario } from '../scenario.js';

/**
 * GET /v1/me with a valid token: auth, rate limit, the envelope machinery (the principal
 * comes from the auth cache, so no query), against the bare Fastify hello route.
 */
export const me: Scenario = {
  name: 'me',
  async setup(ctx) {
    return [
      {
        name: 'GET /v1/me',
        url: `${ctx.url}/v1/me`,
        headers: { authorization: `Bearer ${ctx.token}` },
        baselines: [{ name: 'bare Fastify GET /hello', url: `${ctx.baselineUrl}/hello` }],
      },
    ];
  },
};
