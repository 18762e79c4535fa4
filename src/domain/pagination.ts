import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { AppError } from './errors.js';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export interface PageInput {
  cursor?: string | undefined;
  limit?: number | undefined;
}

export interface Page<T> {
  data: T[];
  next_cursor?: string;
}

/** Where the previous page stopped: its last row's sort key (Postgres text or a number) and id. */
export interface Position {
  key: string | number;
  id: string;
}

export const invalidCursor = () =>
  new AppError('invalid_cursor', 400, 'That cursor is not valid for this list; start again without it.');

// Fingerprints of the scopes seen: a list's scope (its organization, caller and filters) is
// asked again on every page. The bound only keeps the memo small.
const MAX_FINGERPRINTS = 1_000;
const fingerprints = new Map<string, string>();

function fingerprint(scope: unknown): string {
  const text = JSON.stringify(scope);
  let print = fingerprints.get(text);
  if (print === undefined) {
    if (fingerprints.size >= MAX_FINGERPRINTS) fingerprints.clear();
    print = createHash('sha256').update(text).digest('base64url').slice(0, 16);
    fingerprints.set(text, print);
  }
  return print;
}

/** A cursor as decoded, before it is checked against a list's scope (`positionIn`). */
export interface Cursor {
  at: Position;
  print: string;
}

/**
 * A cursor's position and the fingerprint of the scope it was made for; 400 `invalid_cursor`
 * when it is not a cursor of ours. For a read that learns part of its scope from its own
 * query (`listCards` resolves the board there): `positionIn` then checks the scope.
 */
export function decodeCursor(cursor: string | undefined): Cursor | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    (typeof parsed[0] !== 'string' && typeof parsed[0] !== 'number') ||
    typeof parsed[1] !== 'string' ||
    typeof parsed[2] !== 'string'
  ) {
    throw invalidCursor();
  }
  return { at: { key: parsed[0], id: parsed[1] }, print: parsed[2] };
}

/** The cursor's position if it was made for `scope` (the same list, the same filters); else 400 `invalid_cursor`. */
export function positionIn(cursor: Cursor, scope: unknown): Position {
  if (cursor.print !== fingerprint(scope)) throw invalidCursor();
  return cursor.at;
}

/**
 * Decodes a cursor made for the same list and the same filters (`scope`); a cursor from
 * another list or other filters is refused with 400 `invalid_cursor`.
 */
export function readCursor(cursor: string | undefined, scope: unknown): Position | undefined {
  const decoded = decodeCursor(cursor);
  return decoded && positionIn(decoded, scope);
}

export function makeCursor(position: Position, scope: unknown): string {
  return Buffer.from(JSON.stringify([position.key, position.id, fingerprint(scope)])).toString('base64url');
}

export function pageLimit(input: PageInput): number {
  return input.limit ?? DEFAULT_LIMIT;
}

/**
 * What a page fetches, `limit + 1` rows (the extra one only tells that more exist), written
 * into the SQL as a literal, never a parameter. Statements are named prepared statements
 * (src/db/prepared-pool.ts): after five runs Postgres may plan one generically, blind to its
 * parameters, and a parameter LIMIT is then taken for 10% of the table (a parallel Gather
 * Merge: 20 ms instead of 0.5 ms for a page of 100,000 snippets). Each list makes at most
 * MAX_LIMIT statements of it. `test/query-plans.test.ts` keeps it so.
 */
export function fetchLimit(limit: number): RawBuilder<number> {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new RangeError(`page limit ${limit} out of range`);
  return sql.lit(limit + 1);
}

// Postgres timestamptz text exactly as tack's UTC sessions write it into cursors: `2026-11-21 09:00:00.123456+00`.
const PG_UTC_TIMESTAMP = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.\d{1,6})?\+00$/;
// No NUL (Postgres text cannot hold it) and a sane length.
const SAFE_TEXT = /^[^\u0000]{1,512}$/;
const INT4 = { min: -2_147_483_648, max: 2_147_483_647 };

export type SortCast = 'timestamptz' | 'integer' | 'text';

/** A time that exists (no 30 February, no year 0): what Postgres would accept, checked before it is asked. */
function isUtcTimestampText(key: string): boolean {
  const m = PG_UTC_TIMESTAMP.exec(key);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (y < 1) return false;
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, 0);
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && t.getUTCHours() === h && t.getUTCMinutes() === mi && t.getUTCSeconds() === s;
}

function fitsCast(key: string | number, cast: SortCast): boolean {
  if (cast === 'integer') {
    const n = typeof key === 'number' ? key : /^-?\d{1,10}$/.test(key) ? Number(key) : NaN;
    return Number.isInteger(n) && n >= INT4.min && n <= INT4.max;
  }
  if (typeof key !== 'string') return false;
  if (cast === 'timestamptz') return isUtcTimestampText(key);
  return SAFE_TEXT.test(key);
}

/**
 * The keyset condition for newest-first lists: `(sort, id) < (key, id)`, a row comparison
 * that a `(…, sort desc, id desc)` index serves. `cast` names the sort column's type so a
 * text key compares as that type (`timestamptz`, `date`, `integer`).
 */
export function before(sortColumn: string, idColumn: string, at: Position, cast: SortCast): RawBuilder<boolean> {
  checkPosition(at, cast);
  return keyset(sortColumn, idColumn, at, cast, '<');
}

/** The keyset condition for lists in ascending order (criteria by position): `(sort, id) > (key, id)`. */
export function after(sortColumn: string, idColumn: string, at: Position, cast: SortCast): RawBuilder<boolean> {
  checkPosition(at, cast);
  return keyset(sortColumn, idColumn, at, cast, '>');
}

/**
 * Refuses a position that Postgres could not read as `cast`: a cursor is only base64 JSON, so
 * an edited one must be refused here, not fail in Postgres's cast.
 */
export function checkPosition(at: Position, cast: SortCast): void {
  if (!fitsCast(at.key, cast) || !SAFE_TEXT.test(at.id)) throw invalidCursor();
}

/**
 * `before`'s condition without the check, for a `QueryTemplate` (its values are placeholders): `checkPosition` first.
 *
 * The position reaches Postgres through scalar subqueries, `((select cast($k as …)), (select
 * cast($i as text)))`, which the planner runs once as InitPlans and does not look into. Seen
 * as plain parameters, the values let each run's own (custom) plan estimate how many rows lie
 * past the position, which made it look cheaper than the generic plan: Postgres then planned
 * every page after the first anew, about 0.5 ms of planning a request on the bench's 100,000
 * snippets. Blind to the values, both plans cost the same, and Postgres keeps the generic one
 * after five runs, as it does for first pages (`test/query-plans.test.ts`). The index still
 * serves the comparison: an InitPlan's output is a constant for the scan.
 */
export function keyset(sortColumn: string, idColumn: string, at: Position, cast: SortCast, op: '<' | '>'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(sortColumn)}, ${sql.ref(idColumn)}) ${sql.raw(op)} ((select cast(${at.key} as ${sql.raw(cast)})), (select cast(${at.id} as text)))`;
}

/**
 * Turns `limit + 1` fetched rows into a page: the extra row only tells that more exist.
 */
export function toPage<Row, Out>(
  rows: Row[],
  limit: number,
  positionOf: (row: Row) => Position,
  present: (row: Row) => Out,
  scope: unknown,
): Page<Out> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const page: Page<Out> = { data: kept.map(present) };
  if (more && kept.length > 0) page.next_cursor = makeCursor(positionOf(kept[kept.length - 1]!), scope);
  return page;
}
