import { rawBaselines } from '../raw.js';
import type { Scenario } from '../scenario.js';
import { cursorAfter, owner } from './seed.js';

const SNIPPETS = 100_000;
const DEEP_PAGES = 1_000;

// tack's statements as kysely renders them (its query log), for the raw routes.
const COLUMNS =
  'select "snippets"."id", "snippets"."org_id", "snippets"."created_by", "snippets"."type", "snippets"."name", "snippets"."slug", ' +
  '"snippets"."category", "snippets"."tags", "snippets"."visibility", "snippets"."version", "snippets"."body", "snippets"."created_at", ' +
  '"snippets"."updated_at", "snippet_links"."link" from "snippets" left join "snippet_links" on "snippet_links"."snippet_id" = "snippets"."id" ' +
  'and "snippet_links"."revoked_at" is null where ("snippets"."org_id" = $1 and ("snippets"."visibility" = $2 or "snippets"."created_by" = $3))';
const ORDER = ' order by "snippets"."updated_at" desc, "snippets"."id" desc limit 26';
const LIST = COLUMNS + ORDER;
const LIST_AFTER = `${COLUMNS} and ("snippets"."updated_at", "snippets"."id") < (cast($4 as timestamptz), $5)${ORDER}`;
const ONE = `${COLUMNS} and "snippets"."id" = $4`;

/**
 * listSnippets (first page, and a page 1,000 cursors deep) and getSnippet on a database
 * holding 100,000 snippets. Keyset pagination should make the deep page cost about what the
 * first does.
 */
export const snippets: Scenario = {
  name: 'snippets',
  async setup(ctx) {
    const { orgId, memberId } = await owner(ctx.pool);
    process.stdout.write(`seeding ${SNIPPETS} snippets …\n`);
    await ctx.pool.query(
      `insert into snippets (id, org_id, created_by, type, name, slug, category, tags, body, created_at, updated_at)
       select 'snp_bench' || g, $1, $2, (array['html','sql','json','txt'])[1 + g % 4],
              'Snippet ' || g, 'snippet-' || g, 'bench/' || (g % 50), array['t' || (g % 20)],
              repeat('select * from things where id = ' || g || '; ', 5),
              now() - make_interval(secs => g), now() - make_interval(secs => g)
       from generate_series(1, ${SNIPPETS}) g`,
      [orgId, memberId],
    );
    await ctx.pool.query(
      `insert into snippet_versions (snippet_id, version, org_id, created_by, name, category, tags, body)
       select id, 1, org_id, created_by, name, category, tags, body from snippets`,
    );
    await ctx.pool.query(`insert into snippet_links (link, snippet_id, org_id) select md5(id) || md5(id || 'x'), id, org_id from snippets`);
    await ctx.pool.query('analyze');
    const auth = { authorization: `Bearer ${ctx.token}` };
    const list = `${ctx.url}/v1/snippets?limit=25`;
    const deep = await cursorAfter(list, ctx.token, DEEP_PAGES);
    const [key, id] = JSON.parse(Buffer.from(deep, 'base64url').toString('utf8')) as [string, string];
    const who = [orgId, 'team', memberId];
    return [
      { name: 'listSnippets, first page (100k snippets)', url: list, headers: auth, baselines: await rawBaselines(ctx, 'list-snippets', [{ sql: LIST, params: who }], 'page') },
      {
        name: `listSnippets, page ${DEEP_PAGES + 1} (after ${DEEP_PAGES} cursors)`,
        url: `${list}&cursor=${encodeURIComponent(deep)}`,
        headers: auth,
        baselines: await rawBaselines(ctx, 'list-snippets-deep', [{ sql: LIST_AFTER, params: [...who, key, id] }], 'page'),
      },
      {
        name: 'getSnippet (100k snippets)',
        url: `${ctx.url}/v1/snippets/snp_bench4242`,
        headers: auth,
        baselines: await rawBaselines(ctx, 'get-snippet', [{ sql: ONE, params: [...who, 'snp_bench4242'] }], 'one'),
      },
    ];
  },
};
