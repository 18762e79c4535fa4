import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

// Statements longer than this (bulk inserts with many rows) are not worth a cached plan.
const MAX_PREPARED_TEXT = 4_000;

/**
 * The pg Pool as kysely's PostgresDialect drives it, with every parameterised statement
 * sent as a named prepared statement: each connection parses and plans a query shape once
 * and then only binds, instead of planning on every request (planning was most of the
 * database time of a simple read on the bench). Statement names are the hash of their text,
 * so the same shape maps to the same statement on every connection.
 */
export class PreparedStatementPool implements PostgresPool {
  constructor(private readonly pool: pg.Pool) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    return {
      query<R>(text: string, values: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        const params = values as unknown[];
        if (params.length === 0 || text.length > MAX_PREPARED_TEXT) {
          return client.query(text, params) as unknown as Promise<PostgresQueryResult<R>>;
        }
        const name = `k${createHash('sha1').update(text).digest('base64url')}`;
        return client.query({ name, text, values: params }) as unknown as Promise<PostgresQueryResult<R>>;
      },
      release() {
        client.release();
      },
    } as PostgresPoolClient;
  }

  async end(): Promise<void> {
    await this.pool.end();
  }
}
