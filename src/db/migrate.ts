import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './connect.js';
import { migrations } from './migrations/index.js';

// Any constant will do; it only has to be the same in every tack process.
const MIGRATION_LOCK = 7_412_031;

/** The migrations of `migrations/index.ts` as kysely runs them (exported for tests that stop part way). */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    const out: Record<string, Migration> = {};
    for (const m of migrations) {
      out[m.name] = {
        async up(db) {
          for (const statement of m.up) await sql.raw(statement).execute(db);
        },
      };
    }
    return out;
  },
};

/**
 * Brings the schema up to date. Safe with several processes starting at once: a session
 * advisory lock serialises them before kysely's own bookkeeping tables are even created.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      const migrator = new Migrator({ db: conn, provider: migrationProvider });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(String(error));
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}
