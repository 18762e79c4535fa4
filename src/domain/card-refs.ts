import type { ExpressionBuilder, Kysely } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import type { BoardsTable, CardsTable, Database, WorkflowStatus } from '../db/schema.js';
import { notFound } from './errors.js';
import { hasIdPrefix } from './ids.js';

/** A card ref, `<PREFIX>-<n>` (`ENG-42`); the prefix matches case-insensitively. */
const CARD_REF = /^([A-Za-z][A-Za-z0-9]{0,9})-([1-9][0-9]{0,8})$/;

export interface CardRef {
  prefix: string;
  number: number;
}

export function parseCardRef(value: string): CardRef | undefined {
  const m = CARD_REF.exec(value.trim());
  if (!m) return undefined;
  return { prefix: m[1]!.toUpperCase(), number: Number(m[2]) };
}

export function formatCardRef(prefix: string, number: number): string {
  return `${prefix}-${number}`;
}

/** How a card key finds its card: by id, or by its ref's prefix and number. */
export type CardKeyKind = 'id' | 'ref';

/** A card key's values for a query template (`cardKeyIs`); the kind not used is left empty. */
export type CardKeyValues = {
  org: string;
  id: string;
  prefix: string;
  number: number;
};

/** The kind and values of a card key: an id (`crd_…`) or a ref; 404 `card_not_found` for anything else. */
export function cardKeyOf(orgId: string, key: string): { by: CardKeyKind; values: CardKeyValues } {
  if (hasIdPrefix(key, 'crd')) return { by: 'id', values: { org: orgId, id: key, prefix: '', number: 0 } };
  const ref = parseCardRef(key);
  if (!ref) throw notFound('card', key);
  return { by: 'ref', values: { org: orgId, id: '', prefix: ref.prefix, number: ref.number } };
}

/** Cards as `c` joined to their boards as `b`, as card reads select them. */
type CardsWithBoards = { c: CardsTable; b: BoardsTable };

/**
 * The condition that finds a card (`cardKeyOf`) in `cards as c` joined to `boards as b`, in a
 * query that keeps the organization's cards (`c.org_id`): by id, or by the ref with the board's
 * organization too (boards_org_prefix (org_id, ref_prefix) finds the board).
 */
export function cardKeyIs(by: CardKeyKind, v: CardKeyValues) {
  return (eb: ExpressionBuilder<CardsWithBoards, 'c' | 'b'>) =>
    by === 'id' ? eb('c.id', '=', v.id) : eb.and([eb('b.org_id', '=', v.org), eb('b.ref_prefix', '=', v.prefix), eb('c.number', '=', v.number)]);
}

/** What a write needs to know about a card it is about to change. */
export interface CardHandle {
  id: string;
  board_id: string;
  gated: boolean;
  workflow_status: WorkflowStatus;
}

/**
 * A card of the organization by id (`crd_…`) or ref (`ENG-42`); 404 `card_not_found`
 * otherwise. With `lock`, the card row stays locked until the transaction ends, so
 * concurrent writes to one card (moves, new criteria) take turns.
 *
 * ```sql
 * select c.id, c.board_id, b.gated, c.workflow_status from cards c join boards b on b.id = c.board_id
 * where c.org_id = $1 and (c.id = $2 | b.org_id = $1 and b.ref_prefix = $2 and c.number = $3) [for update of c]
 * ```
 */
export async function findCard(db: Kysely<Database>, orgId: string, key: string, lock = false): Promise<CardHandle> {
  const { by, values } = cardKeyOf(orgId, key);
  const row = await cardHandle.executeTakeFirst(db, { by, lock }, values);
  if (!row) throw notFound('card', key);
  return row;
}

const cardHandle = new QueryTemplate('findCard', (db, shape: { by: CardKeyKind; lock: boolean }, v: CardKeyValues) => {
  const q = db.selectFrom('cards as c').innerJoin('boards as b', 'b.id', 'c.board_id').select(['c.id', 'c.board_id', 'b.gated', 'c.workflow_status']).where('c.org_id', '=', v.org).where(cardKeyIs(shape.by, v));
  return shape.lock ? q.forUpdate('c') : q;
});
