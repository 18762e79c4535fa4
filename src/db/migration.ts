/** A forward-only migration: statements run one by one, in one transaction. */
export interface SqlMigration {
  name: string;
  up: string[];
}
