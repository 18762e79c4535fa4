import type { Compilable, CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { directRunner } from './direct-query.js';

/** What a template's values may be: whatever kysely binds as a parameter, untouched (a list as a Postgres array). */
export type SlotValues = Record<string, string | number | boolean | null | readonly string[]>;

interface Compiled {
  sql: string;
  query: CompiledQuery['query'];
  queryId: CompiledQuery['queryId'];
  /** Per parameter: the name of the value that fills it, or the constant the query itself holds. */
  fill: ({ slot: string } | { constant: unknown })[];
}

// Placeholders can't collide with a real value: NUL never reaches a query (input validation
// refuses it), and any change made to one (lowercased, trimmed, concatenated) still holds a NUL.
const NUL = '\u0000';
const sentinel = (name: string) => `${NUL}SLOT:${name}${NUL}`;

/**
 * A statement built with kysely's query builder (or a `sql` template) once per shape, then
 * run with new values: the builder and compiler cost more CPU than the rest of a simple read's
 * Node side (profiled on the bench), and most statements have a handful of shapes. `build` gets, instead of the values,
 * one placeholder per value, which it must pass to kysely untouched (a `where` value, a `${}`
 * in `sql`), never inspect or change: the compiled statement's parameters are then matched
 * back to the names. A placeholder that comes back changed (lowercased, concatenated) or
 * inside the SQL text (`sql.lit`) fails the first run loudly, so a template cannot bind a
 * value other than the one given. Values that decide the SQL's text (a literal limit, which
 * filters apply) belong in `shape`, not in `values`.
 *
 * `shape` names everything the SQL text depends on (which filters are present, a literal
 * limit); it is part of the cache key.
 */
export class QueryTemplate<Shape, Values extends SlotValues, Row> {
  readonly #compiled = new Map<string, Compiled>();

  constructor(
    readonly name: string,
    private readonly build: (db: Kysely<Database>, shape: Shape, values: Values) => Compilable<Row> | RawBuilder<Row>,
  ) {}

  async execute(db: Kysely<Database>, shape: Shape, values: Values): Promise<Row[]> {
    const key = typeof shape === 'string' ? shape : JSON.stringify(shape);
    let compiled = this.#compiled.get(key);
    if (compiled === undefined) {
      compiled = this.#compile(db, shape, Object.keys(values));
      this.#compiled.set(key, compiled);
    }
    const parameters = compiled.fill.map((f) => ('slot' in f ? values[f.slot] : f.constant));
    const query = { sql: compiled.sql, query: compiled.query, queryId: compiled.queryId, parameters };
    // On the pool itself, past kysely's executor; in a transaction, through it.
    const direct = directRunner(db);
    if (direct) return (await direct(query)) as Row[];
    return (await db.executeQuery<Row>(query)).rows;
  }

  async executeTakeFirst(db: Kysely<Database>, shape: Shape, values: Values): Promise<Row | undefined> {
    return (await this.execute(db, shape, values))[0];
  }

  #compile(db: Kysely<Database>, shape: Shape, names: string[]): Compiled {
    const placeholders = Object.fromEntries(names.map((n) => [n, sentinel(n)])) as unknown as Values;
    const built = this.build(db, shape, placeholders);
    // A `sql` template compiles against a database (for its dialect); a builder knows its own.
    const { sql, query, queryId, parameters } = 'isRawBuilder' in built ? built.compile(db) : built.compile();
    const byText = new Map(names.map((n) => [sentinel(n), n]));
    const fill = parameters.map((p) => {
      const slot = typeof p === 'string' ? byText.get(p) : undefined;
      return slot === undefined ? { constant: p } : { slot };
    });
    const changed = fill.some((f) => 'constant' in f && typeof f.constant === 'string' && f.constant.includes(NUL));
    if (changed || sql.includes(NUL)) {
      throw new Error(`query template ${this.name}: a value must reach the query unchanged, as a parameter of its own`);
    }
    return { sql, query, queryId, fill };
  }
}
