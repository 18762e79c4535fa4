import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/**
 * PGlite behind the `pg` Pool shape that kysely's PostgresDialect drives. PGlite has one
 * connection, so `connect()` hands out one client at a time: a transaction keeps it until
 * it ends, and a query through the outer `db` meanwhile waits (pass the handle down).
 */
export class PGlitePool implements PostgresPool {
  #tail: Promise<void> = Promise.resolve();

  constructor(private readonly pg: PGlite) {}

  async connect(): Promise<PostgresPoolClient> {
    let release!: () => void;
    const previous = this.#tail;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const pg = this.pg;
    let released = false;
    return {
      async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        const result = await pg.query<R>(sql, parameters as unknown[]);
        return { command: commandOf(sql), rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
      },
      release() {
        if (released) return;
        released = true;
        release();
      },
    } as PostgresPoolClient;
  }

  async end(): Promise<void> {
    await this.#tail;
    await this.pg.close();
  }
}

function commandOf(sql: string): PostgresQueryResult<unknown>['command'] {
  const head = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase();
  if (head === 'WITH') {
    const m = /\)\s*(INSERT|UPDATE|DELETE|MERGE|SELECT)\b[^()]*$/i.exec(sql) ?? /\b(INSERT|UPDATE|DELETE|MERGE)\b/i.exec(sql);
    return (m?.[1]?.toUpperCase() ?? 'SELECT') as PostgresQueryResult<unknown>['command'];
  }
  return (head ?? 'SELECT') as PostgresQueryResult<unknown>['command'];
}
