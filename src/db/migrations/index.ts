import type { SqlMigration } from '../migration.js';
import { platform } from './0001-platform.js';
import { snippets } from './0002-snippets.js';

/** Every migration, in order. Later issues append theirs. */
export const migrations: SqlMigration[] = [platform, snippets];
