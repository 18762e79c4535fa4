import { z } from 'zod';
import { sql, type Kysely, type Updateable } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import type { BoardsTable, Database } from '../db/schema.js';
import type { Ctx } from './context.js';
import { uniqueViolation } from '../db/errors.js';
import { slugify } from './slug.js';
import { AppError, conflict, notFound, validationFailed } from './errors.js';
import { key, label, pageQuery } from './fields.js';
import { keyLookup, newId } from './ids.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { requireConfigWrite, requireHuman } from './permissions.js';
import { toIso } from './time.js';

export const boardSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  ref_prefix: z.string().describe('Card refs on this board are <ref_prefix>-<n>'),
  gated: z.boolean().describe('Moves to done need a human caller; agent tokens are refused'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Board = z.infer<typeof boardSchema>;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const PREFIX = /^[A-Z][A-Z0-9]{0,9}$/;

// Patterned values are refused, never rewritten (no trimming, no change of case).
export const boardSlug = z
  .string()
  .max(64, 'must be at most 64 characters long')
  .regex(SLUG, 'must be lowercase letters, digits and single hyphens, such as eng-platform');

export const refPrefix = z
  .string()
  .regex(PREFIX, 'must be 1 to 10 letters or digits starting with a letter, such as ENG');

/** A board's id (`brd_…`) or its slug. */
export const boardKey = key('board').describe('Board id (brd_…) or slug');

export const createBoardInput = z.object({
  name: label(100),
  slug: boardSlug.optional().describe('Derived from name when omitted'),
  ref_prefix: refPrefix.optional().describe('Derived from the slug when omitted'),
  gated: z.boolean().default(false),
});

export const updateBoardInput = z.object({
  id: boardKey,
  name: label(100).optional(),
  slug: boardSlug.optional(),
  ref_prefix: refPrefix.optional().describe("Renames every card ref on the board; old refs stop resolving"),
  gated: z.boolean().optional(),
});

export const listBoardsInput = z.object(pageQuery);
export const boardKeyInput = z.object({ id: boardKey });

const boardColumns = ['id', 'name', 'slug', 'ref_prefix', 'gated', 'created_at', 'updated_at'] as const;
type BoardRow = Pick<BoardsTable, 'id' | 'name' | 'slug' | 'ref_prefix'> & { gated: boolean; created_at: string; updated_at: string };

export function presentBoard(row: BoardRow): Board {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    ref_prefix: row.ref_prefix,
    gated: row.gated,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/**
 * A board of the organization by id or slug; 404 `board_not_found` otherwise. With `lock`,
 * the row stays locked until the transaction ends: creating a card takes the same lock
 * (its number counter), so a card and the board's deletion take turns.
 */
export async function findBoard(db: Kysely<Database>, orgId: string, key: string, lock = false): Promise<Board> {
  const { byId, value } = keyLookup(key, 'brd');
  const row = await boardByKey.executeTakeFirst(db, { byId, lock }, { org: orgId, key: value });
  if (!row) throw notFound('board', key);
  return presentBoard(row);
}

/** The organization's boards matching a `keyLookup`: `select … from boards where org_id = $1 and (id|slug) = $2`. */
export function boardsByKey(db: Kysely<Database>, byId: boolean, org: string, value: string) {
  return db
    .selectFrom('boards')
    .where('org_id', '=', org)
    .where(byId ? 'id' : 'slug', '=', value);
}

const boardByKey = new QueryTemplate('findBoard', (db, shape: { byId: boolean; lock: boolean }, v: { org: string; key: string }) => {
  const q = boardsByKey(db, shape.byId, v.org, v.key).select(boardColumns);
  return shape.lock ? q.forUpdate() : q;
});

export const getBoard = (ctx: Ctx, input: z.infer<typeof boardKeyInput>): Promise<Board> => findBoard(ctx.db, ctx.principal.orgId, input.id);

/**
 * Deletes an empty board (owner or admin with `config:write`). A board that still has cards
 * is kept: 409 `board_not_empty`, so no card is ever deleted along with its board.
 */
export async function deleteBoard(ctx: Ctx, input: z.infer<typeof boardKeyInput>): Promise<void> {
  requireConfigWrite(ctx.principal);
  const board = await findBoard(ctx.db, ctx.principal.orgId, input.id, true);
  const card = await ctx.db
    .selectFrom('cards')
    .select('id')
    .where('org_id', '=', ctx.principal.orgId)
    .where('board_id', '=', board.id)
    .limit(sql.lit(1))
    .executeTakeFirst();
  if (card) throw conflict('board_not_empty', 'This board still has cards: delete them first.');
  await ctx.db.deleteFrom('boards').where('org_id', '=', ctx.principal.orgId).where('id', '=', board.id).execute();
}

export async function listBoards(ctx: Ctx, input: z.infer<typeof listBoardsInput>): Promise<Page<Board>> {
  const scope = ['boards', ctx.principal.orgId];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = ctx.db.selectFrom('boards').select(boardColumns).where('org_id', '=', ctx.principal.orgId);
  if (at) q = q.where(before('created_at', 'id', at, 'timestamptz'));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.created_at, id: r.id }), presentBoard, scope);
}

function prefixFromSlug(slug: string): string {
  const letters = slug.replace(/[^a-z0-9]/g, '').toUpperCase();
  const prefix = /^[A-Z]/.test(letters) ? letters : `B${letters}`;
  return prefix.slice(0, 3);
}

function boardClash(err: unknown): AppError | undefined {
  const constraint = uniqueViolation(err);
  if (constraint === undefined) return undefined;
  if (constraint === 'boards_org_prefix') return new AppError('board_conflict', 409, 'Another board already uses that ref prefix.');
  return new AppError('board_conflict', 409, 'Another board already uses that slug.');
}

/** A new board (owner or admin with `config:write`). Slug and prefix default from the name. */
export async function createBoard(ctx: Ctx, input: z.infer<typeof createBoardInput>): Promise<Board> {
  requireConfigWrite(ctx.principal);
  const slug = input.slug ?? slugify(input.name, 64);
  if (!SLUG.test(slug)) {
    throw validationFailed([{ field: 'slug', code: 'required', message: 'slug is required: none can be made from this name, so give one such as eng-platform.' }]);
  }
  const refPrefixValue = input.ref_prefix ?? prefixFromSlug(slug);
  try {
    const row = await ctx.db
      .insertInto('boards')
      .values({
        id: newId('brd'),
        org_id: ctx.principal.orgId,
        name: input.name,
        slug,
        ref_prefix: refPrefixValue,
        gated: input.gated,
        created_by: ctx.principal.memberId,
      })
      .returning(boardColumns)
      .executeTakeFirstOrThrow();
    return presentBoard(row);
  } catch (err) {
    throw boardClash(err) ?? err;
  }
}

/**
 * Renames a board or changes its gate (owner or admin with `config:write`). The gate keeps
 * agents from moving cards to done, so only a person changes it (403 `requires_human`).
 */
export async function updateBoard(ctx: Ctx, input: z.infer<typeof updateBoardInput>): Promise<Board> {
  requireConfigWrite(ctx.principal);
  const current = await findBoard(ctx.db, ctx.principal.orgId, input.id);
  if (input.gated !== undefined && input.gated !== current.gated) requireHuman(ctx.principal, "change a board's gate");
  const patch: Updateable<BoardsTable> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.slug !== undefined) patch.slug = input.slug;
  if (input.ref_prefix !== undefined) patch.ref_prefix = input.ref_prefix;
  if (input.gated !== undefined) patch.gated = input.gated;
  if (Object.keys(patch).length === 0) return current;
  try {
    const row = await ctx.db
      .updateTable('boards')
      .set({ ...patch, updated_at: ctx.clock().toISOString() })
      .where('org_id', '=', ctx.principal.orgId)
      .where('id', '=', current.id)
      .returning(boardColumns)
      .executeTakeFirstOrThrow();
    return presentBoard(row);
  } catch (err) {
    throw boardClash(err) ?? err;
  }
}
