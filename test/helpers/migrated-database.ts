import { Migrator } from 'kysely';
import { connect, type DbHandle } from '../../src/db/connect.js';
import { migrationProvider } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './database.js';

/** A new test database migrated up to and including `name`: to test a later migration on the data it finds. */
export async function databaseMigratedTo(name: string): Promise<{ database: TestDatabase; handle: DbHandle }> {
  const database = await createTestDatabase();
  const handle = await connect({ databaseUrl: database.url, dataDir: '' });
  const { error } = await new Migrator({ db: handle.db, provider: migrationProvider }).migrateTo(name);
  if (error) throw error;
  return { database, handle };
}
