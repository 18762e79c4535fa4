import type { ExpressionBuilder, Kysely } from 'kysely';
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

/** What a card key names: an id (`crd_…`) or a ref; 404 `card_not_found` for anything else. */
function cardKey(key: string): { id: string } | CardRef {
  if (hasIdPrefix(key, 'crd')) return { id: key };
  const ref = parseCardRef(key);
  if (!ref) throw notFound('card', key);
  return ref;
}

/** Cards as `c` joined to their boards as `b`, as card reads select them. */
type CardsWithBoards = { c: CardsTable; b: BoardsTable };

/**
 * The condition that finds the card `key` names in `cards as c` joined to `boards as b`: by id,
 * or by the ref with the board's organization too (boards_org_prefix (org_id, ref_prefix)
 * finds the board). Throws 404 for a key that is neither.
 */
export function cardKeyIs(orgId: string, key: string) {
  const by = cardKey(key);
  return (eb: ExpressionBuilder<CardsWithBoards, 'c' | 'b'>) =>
    'id' in by ? eb('c.id', '=', by.id) : eb.and([eb('b.org_id', '=', orgId), eb('b.ref_prefix', '=', by.prefix), eb('c.number', '=', by.number)]);
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
  let q = db
    .selectFrom('cards as c')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .select(['c.id', 'c.board_id', 'b.gated', 'c.workflow_status'])
    .where('c.org_id', '=', orgId);
  q = q.where(cardKeyIs(orgId, key));
  if (lock) q = q.forUpdate('c');
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('card', key);
  return row;
}
