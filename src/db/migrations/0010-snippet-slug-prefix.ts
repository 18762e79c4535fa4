import type { SqlMigration } from '../migration.js';

/**
 * Slugs of one base (`deploy`, `deploy-2`, `deploy-3`, …) as one index range. Allocating a
 * slug read every snippet of the organization before (`slug like 'deploy-%'` cannot use the
 * unique (org_id, slug) index outside the C collation, nor with the pattern as a parameter):
 * 88 creations a second on 100,000 snippets. `text_pattern_ops` compares byte by byte with
 * the `~>=~`/`~<~` operators, whatever the database's collation, parameters included.
 */
export const snippetSlugPrefix: SqlMigration = {
  name: '0010-snippet-slug-prefix',
  up: [`create index snippets_org_slug_pattern on snippets (org_id, slug text_pattern_ops)`],
};
