import { sql, type Kysely, type RawBuilder } from 'kysely';
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
 * Takes the transaction's lock on the slugs of `base`: every two allocations that could pick
 * the same slug (`deploy`, `deploy-2`, `deploy-2-3` all lock `deploy`) hold it in turn until
 * their commit. As a value, so a statement can take it before it picks:
 *
 * `pg_advisory_xact_lock(hashtextextended('snippet-slug ' || $org || ' ' || $stem, 0))`
 */
export function slugLock(orgId: string, base: string): RawBuilder<unknown> {
  return slugLockOn(slugLockName(orgId, base));
}

/** The name `slugLock` locks (its stem: `deploy-2-3` → `deploy`), for a statement that takes it as a value. */
export function slugLockName(orgId: string, base: string): string {
  const stem = base.replace(/(-\d+)+$/, '') || base;
  return `snippet-slug ${orgId} ${stem}`;
}

/** `slugLock` of a name given as a value (`slugLockName`). */
export function slugLockOn(name: string): RawBuilder<unknown> {
  return sql`pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
}

/**
 * The first free slug of `base`, `base-2`, `base-3`, … in the organization, as the statement
 * that runs it sees the table (one rule for creating and renaming). Slugs hold only
 * [a-z0-9-] and '.' follows '-' byte-wise, so [base, base + '.') holds exactly `base` and
 * `base-…`: one range of snippets_org_slug_pattern (migration 0010). Among 2 … n + 2, with n
 * slugs taken, one is always free.
 *
 * ```sql
 * with taken as (select slug from snippets where org_id = $org and slug ~>=~ $base and slug ~<~ $base || '.')
 * select case when not exists (select from taken where slug = $base) then $base
 *   else (select $base || '-' || n from generate_series(2, (select count(*) + 2 from taken)) n
 *         where not exists (select from taken where slug = $base || '-' || n) order by n limit 1) end
 * ```
 *
 * `baseEnd` is `base` + '.', given apart when `base` is a template's placeholder (`QueryTemplate`).
 */
export function freeSlug(orgId: string, base: string, baseEnd = `${base}.`): RawBuilder<string> {
  return sql<string>`(with taken as (
      select slug from snippets where org_id = ${orgId} and slug ~>=~ ${base} and slug ~<~ ${baseEnd}
    )
    select case when not exists (select from taken where slug = ${base}) then ${base}::text
      else (select ${base} || '-' || n from generate_series(2, (select count(*)::int + 2 from taken)) n
            where not exists (select from taken where slug = ${base} || '-' || n) order by n limit 1)
    end)`;
}

/**
 * A free slug for a renamed snippet: the lock (`slugLock`), then `freeSlug` in a statement of
 * its own, whose snapshot sees every slug committed by whoever held the lock before. Must run
 * inside the write's transaction: the lock is released at its end. The unique (org_id, slug)
 * index stays the guarantee; a new snippet takes its slug in its insert (`createSnippet`).
 */
export async function allocateSlug(db: Kysely<Database>, orgId: string, base: string): Promise<string> {
  await sql`select ${slugLock(orgId, base)}`.execute(db);
  const { rows } = await sql<{ slug: string }>`select ${freeSlug(orgId, base)} as slug`.execute(db);
  return rows[0]!.slug;
}
