import { sql, type RawBuilder } from 'kysely';
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

/**
 * One row as a JSON object of `columns` (name → SQL text over the query's tables), in that
 * order: `(select row_to_json(o)::text from (select … as "id", … as "name") o)`. The text is
 * SQL of ours, never input; a builder made of it once costs kysely nothing to compile.
 */
export function rowJson(columns: Record<string, string>): RawBuilder<string> {
  const fields = Object.entries(columns).map(([name, value]) => `${value} as "${name}"`);
  return sql.raw<string>(`(select row_to_json(o)::text from (select ${fields.join(', ')}) o)`);
}

/** A column reference as SQL text: `snippets.id` → `"snippets"."id"`. */
export function col(column: string): string {
  return column
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/** A timestamptz column as `toIso` prints it: UTC, milliseconds cut (not rounded) from microseconds. */
export function isoText(column: string): string {
  return `to_char(${col(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A string as an SQL literal (standard_conforming_strings, Postgres's default: only `'` is doubled). */
export function textLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** `toPage` for rows that carry their JSON (`json`): `{"data":[…],"next_cursor":"…"}`. */
export function pageJson<Row extends { json: string }>(rows: Row[], limit: number, positionOf: (row: Row) => Position, scope: unknown): JsonText {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  let text = `{"data":[${kept.map((r) => r.json).join(',')}]`;
  if (more && kept.length > 0) text += `,"next_cursor":${JSON.stringify(makeCursor(positionOf(kept[kept.length - 1]!), scope))}`;
  return new JsonText(`${text}}`);
}
