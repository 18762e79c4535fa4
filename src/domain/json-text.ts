import { sql, type AliasedRawBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import { makeCursor, type Position } from './pagination.js';

/**
 * A read's answer already serialized, by Postgres: the exact text `JSON.stringify` would make
 * of the presented rows, passed through to every face as is. Postgres's `row_to_json` writes
 * compact JSON with the columns in order and escapes strings as `JSON.stringify` does, so a
 * row costs Node no parsing, no presentation and no serialization (`test/read-output.test.ts`
 * holds every read to the bytes it answered before).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

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
  data: string | null;
  more: boolean;
  key: string | number | null;
  id: string | null;
}

/**
 * A list's rows numbered in its order, `key desc, id desc` (the keyset's order), as `rn`:
 * what `pageRow` needs of the query it wraps.
 */
export function pageNumber(key: string, id: string): AliasedRawBuilder<number, 'rn'> {
  return sql<number>`row_number() over (order by ${sql.ref(key)} desc, ${sql.ref(id)} desc)`.as('rn');
}

/**
 * A page as one row: `inner` fetches `limit + 1` rows, each with its JSON (`json`), its
 * number in the list's order (`rn`, `pageNumber`), and its sort key (`keyColumn`) and `id`;
 * Postgres joins the first `limit` rows' JSON in that order, says whether the extra row came,
 * and gives the last kept row's position (the next cursor's). Node then reads one row instead
 * of `limit + 1` (each a protocol message, an event, an object and three strings: under load
 * most of a list's Node side).
 *
 * `select string_agg(p.json, ',' order by p.rn) filter (where p.rn <= L) as data, count(*) > L as more,
 *  min(p.<key>) filter (where p.rn = L) as key, min(p.id) filter (where p.rn = L) as id from (…) p`
 */
export function pageRow<DB, TB extends keyof DB, O extends { json: string; rn: number; id: string }>(
  db: Kysely<Database>,
  inner: SelectQueryBuilder<DB, TB, O>,
  keyColumn: keyof O & string,
  limit: number,
) {
  const last = sql.lit(limit);
  return db
    .selectFrom(inner.as('p'))
    .select([
      sql<string | null>`string_agg(p.json, ',' order by p.rn) filter (where p.rn <= ${last})`.as('data'),
      sql<boolean>`count(*) > ${last}`.as('more'),
      sql<string | number | null>`min(${sql.ref(`p.${keyColumn}`)}) filter (where p.rn = ${last})`.as('key'),
      sql<string | null>`min(p.id) filter (where p.rn = ${last})`.as('id'),
    ]);
}

/** A `pageRow` as the list's answer: `{"data":[…],"next_cursor":"…"}`. */
export function pageJson(row: PageRow | undefined, scope: unknown): JsonText {
  let text = `{"data":[${row?.data ?? ''}]`;
  if (row?.more && row.key !== null && row.id !== null) text += `,"next_cursor":${JSON.stringify(makeCursor({ key: row.key, id: row.id }, scope))}`;
  return new JsonText(`${text}}`);
}
