import { rawValueBaseline } from '../raw.js';
import type { Scenario } from '../scenario.js';

/**
 * GET /v1/me with a valid token: auth, rate limit, the envelope machinery (the principal
 * comes from the auth cache, so no query). Its raw route answers the same JSON (read once
 * from tack) through `JSON.stringify`, as the raw routes of the reads with SQL do; the bare
 * Fastify hello route is measured too.
 */
export const me: Scenario = {
  name: 'me',
  async setup(ctx) {
    const url = `${ctx.url}/v1/me`;
    const headers = { authorization: `Bearer ${ctx.token}` };
    const res = await fetch(url, { headers });
    if (!res.ok) throw new Error(`GET /v1/me: ${res.status} ${await res.text()}`);
    const answer: unknown = await res.json();
    return [
      {
        name: 'GET /v1/me',
        url,
        headers,
        baselines: [await rawValueBaseline(ctx, 'me', answer), { name: 'bare Fastify GET /hello', url: `${ctx.baselineUrl}/hello` }],
      },
    ];
  },
};
