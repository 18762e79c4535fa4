import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

// Statements longer than this (bulk inserts with many rows) are not worth a cached plan.
const MAX_PREPARED_TEXT = 4_000;
// Names of the statement texts seen, so a text is hashed once, not on every query. Texts come
// from a bounded set of query shapes; the bound only guards against an unforeseen one.
const MAX_NAMES = 2_000;
const names = new Map<string, string>();

/** `k` + the SHA-1 of the text (the same shape has the same name on every connection), memoized. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES) names.clear();
    name = `k${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return name;
}

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
        return client.query({ name: statementName(text), text, values: params }) as unknown as Promise<PostgresQueryResult<R>>;
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
