import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { slugify } from '../slug.js';

const MAX_BASE = 60;

/** A snippet's slug base: `Déploy: the API!` → `deploy-the-api`; no Latin letters or digits → `snippet`. */
export function snippetSlug(name: string): string {
  return slugify(name, MAX_BASE) || 'snippet';
}

/** True when `slug` is `base` or `base-<n>`: a slug that already belongs to that name. */
export function slugFits(slug: string, base: string): boolean {
  return slug === base || (slug.startsWith(`${base}-`) && /^\d+$/.test(slug.slice(base.length + 1)));
}

/**
 * The first free slug of `base`, `base-2`, `base-3`, … in the organization. Allocation is
 * serialised on the base with its numeric suffixes removed (`deploy-2-3` → `deploy`), so
 * every two allocations that could pick the same slug wait for each other; the waiting one
 * then sees the other's committed row. The unique (org_id, slug) index stays the guarantee.
 * Must run inside the write's transaction: the lock is released at its end.
 */
export async function allocateSlug(db: Kysely<Database>, orgId: string, base: string): Promise<string> {
  const stem = base.replace(/(-\d+)+$/, '') || base;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`snippet-slug ${orgId} ${stem}`}, 0))`.execute(db);
  // Slugs hold only [a-z0-9-] and '.' follows '-' byte-wise, so [base, base + '.') holds
  // exactly `base` and `base-…`: one range of snippets_org_slug_pattern (migration 0010).
  const rows = await db
    .selectFrom('snippets')
    .select('slug')
    .where('org_id', '=', orgId)
    .where(sql<boolean>`slug ~>=~ ${base} and slug ~<~ ${`${base}.`}`)
    .execute();
  const taken = new Set(rows.map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
