import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { createSecondOrg } from './helpers/second-org.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

const create = (body: Record<string, unknown>, options: { token?: string; headers?: Record<string, string> } = {}) =>
  t.api('POST', '/v1/snippets', { body, ...options });

describe('createSnippet and getSnippet', () => {
  it('creates version 1 with a slug, defaults and a public link', async () => {
    const res = await create({ type: 'sql', name: 'Active users', body: 'select * from users where active' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      org_id: expect.stringMatching(/^org_/),
      type: 'sql',
      name: 'Active users',
      slug: 'active-users',
      category: null,
      tags: [],
      visibility: 'team',
      version: 1,
      body: 'select * from users where active',
    });
    expect(res.body.id).toMatch(/^snp_/);
    expect(res.body.public_url).toMatch(new RegExp(`^${t.config.publicBaseUrl}/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
    expect(res.body.updated_at).toBe(res.body.created_at);

    const got = await t.api('GET', `/v1/snippets/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const bySlug = await t.api('GET', '/v1/snippets/active-users');
    expect(bySlug.body.id).toBe(res.body.id);
  });
});
