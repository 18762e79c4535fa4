import { sql, type AliasedRawBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { RawJson } from '../db/raw-json.js';
import type { Database } from '../db/schema.js';
import { makeCursor, type Position } from './pagination.js';

/** A column reference as SQL text: `snippets.id` → `"snippets"."id"`. */
export function col(column: string): string {
  return column
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/** A string as an SQL literal (standard_conforming_strings, Postgres's default: only `'` is doubled). */
export function textLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A page read as one row (`pageRow`): its rows' JSON, joined; whether more follow; where its last row stands. */
export interface PageRow {
  data: string;
  more: boolean;
  key: string | null;
  id: string | null;
}

/**
 * What `pageRow` collects of each row of a list, as the list's only column: the row's JSON,
 * its sort key as text (as Postgres writes the key's type, so the same text a cursor held
 * before) and its id, `array[<json>, <key>::text, <id>]` as `entry`.
 */
export function pageEntry(json: RawBuilder<string>, key: string, id: string): AliasedRawBuilder<string[], 'entry'> {
  return sql<string[]>`array[${json}, ${sql.ref(key)}::text, ${sql.ref(id)}]`.as('entry');
}

/**
 * A page as one row: `list` selects `limit + 1` rows' `pageEntry`, in the list's order
 * (`key desc, id desc`, the keyset's); Postgres collects them in that order into one array
 * (`array(<list>)`, whose order is the list's own `order by`), then joins the first `limit`
 * rows' JSON, says whether the extra row came, and gives the last kept row's position (the
 * next cursor's). Node then reads one row instead of `limit + 1` (each a protocol message, an
 * event, an object and three strings: under load most of a list's Node side).
 *
 * Collected this way rather than numbered by `row_number()` and joined by an ordered
 * `string_agg`: the window copies every row into a tuple store and the ordered aggregate
 * sorts them again, about 15% of the statement's database time for a page of 25 snippets
 * (bench/README.md, eighth round). `offset 0` keeps the array a subquery computed once;
 * without it Postgres would inline `array(…)` into each of the four expressions that read it.
 *
 * `select array_to_string(p.a[1:L][1:1], ',') as data, coalesce(array_length(p.a, 1) > L, false) as more,
 *  p.a[L][2] as key, p.a[L][3] as id from (select array(<list>) as a offset 0) p`
 */
export function pageRow<DB, TB extends keyof DB>(db: Kysely<Database>, list: SelectQueryBuilder<DB, TB, { entry: string[] }>, limit: number) {
  const last = sql.lit(limit);
  const entries = db.selectNoFrom(sql<string[][]>`array(${list})`.as('a')).offset(sql.lit(0));
  return db
    .selectFrom(entries.as('p'))
    .select([
      sql<string>`array_to_string(p.a[1:${last}][1:1], ',')`.as('data'),
      sql<boolean>`coalesce(array_length(p.a, 1) > ${last}, false)`.as('more'),
      sql<string | null>`p.a[${last}][2]`.as('key'),
      sql<string | null>`p.a[${last}][3]`.as('id'),
    ]);
}

/**
 * A `pageRow` as the list's answer: `{"data":[…],"next_cursor":"…"}`, typed as the page `P`
 * its rows' SQL presents (`test/read-output.test.ts` holds every read to the bytes it answered before).
 */
export function pageJson<P>(row: PageRow | undefined, scope: unknown): RawJson<P> {
  let text = `{"data":[${row?.data ?? ''}]`;
  if (row?.more && row.key !== null && row.id !== null) text += `,"next_cursor":${JSON.stringify(makeCursor({ key: row.key, id: row.id }, scope))}`;
  return new RawJson<P>(`${text}}`);
}
