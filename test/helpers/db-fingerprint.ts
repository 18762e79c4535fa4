import type { TestDatabase } from './database.js';

/** Every table of the schema, each with its row count and a hash of all its rows. */
export type Fingerprint = Record<string, string>;

/**
 * A snapshot of the whole database, small enough to compare: for a refused request, the
 * fingerprint after must equal the one before (the standard's "changes nothing").
 * `schema_migrations`-style bookkeeping is included too: nothing may touch it either.
 */
export async function fingerprint(db: TestDatabase): Promise<Fingerprint> {
  const tables = await db.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public' order by 1`);
  const out: Fingerprint = {};
  for (const { name } of tables) {
    const [row] = await db.query<{ n: number; h: string }>(
      `select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from "${name}" t`,
    );
    out[name] = `${row!.n}:${row!.h}`;
  }
  return out;
}

/** The tables whose contents differ between two fingerprints. */
export function changedTables(before: Fingerprint, after: Fingerprint): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => before[n] !== after[n]).sort();
}
