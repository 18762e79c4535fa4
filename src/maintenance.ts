import type { Config } from './config.js';
import { connect } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import { checkRestore, type RestoreCheckOptions, type RestoreReport } from './domain/restore-check.js';

// The database tasks an operator runs and that exit (`tack migrate`, `tack restore-check`),
// beside server.ts and worker.ts: like them they open the database themselves, so the CLI,
// a face, never imports src/db. Each opens one connection and closes it when done.

/** `tack migrate`: brings the schema up to date; returns the migrations it applied. */
export async function migrateDatabase(config: Config): Promise<string[]> {
  const handle = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    return await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
}

/**
 * `tack restore-check`: migrates (a restored dump may be older than this release; `migrated`
 * hears of what was applied before the check runs), then readies the restored database.
 */
export async function checkRestoredDatabase(config: Config, options: RestoreCheckOptions, migrated: (applied: string[]) => void): Promise<RestoreReport> {
  const handle = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    migrated(await handle.unbounded(migrateToLatest));
    return await checkRestore(handle.db, options);
  } finally {
    await handle.close();
  }
}
