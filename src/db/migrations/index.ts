import type { SqlMigration } from '../migration.js';
import { platform } from './0001-platform.js';
import { slack } from './0004-slack.js';

/** Every migration, in order. Later issues append theirs. */
export const migrations: SqlMigration[] = [platform, slack];
