import type { Scenario } from '../scenario.js';
import { cursorAfter, owner } from './seed.js';

const SNIPPETS = 100_000;
const DEEP_PAGES = 1_000;

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
    return [
      { name: 'listSnippets, first page (100k snippets)', url: list, headers: auth },
      { name: `listSnippets, page ${DEEP_PAGES + 1} (after ${DEEP_PAGES} cursors)`, url: `${list}&cursor=${encodeURIComponent(deep)}`, headers: auth },
      { name: 'getSnippet (100k snippets)', url: `${ctx.url}/v1/snippets/snp_bench4242`, headers: auth },
    ];
  },
};
