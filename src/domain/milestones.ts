import { z } from 'zod';
import { sql, type Kysely } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import type { Database, MilestoneKind } from '../db/schema.js';
import type { Ctx } from './context.js';
import { uniqueViolation } from '../db/errors.js';
import { AppError, notFound } from './errors.js';
import { isoDate, label, pageQuery } from './fields.js';
import { keyLookup, newId } from './ids.js';
import { milestonesWithStatus } from './milestone-status.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { toIso } from './time.js';
import { MILESTONE_KINDS } from '../vocabulary.js';

export const milestoneSchema = z.object({
  id: z.string(),
  ref: z.string().describe('Human reference, used as the path key'),
  name: z.string(),
  kind: z.enum(MILESTONE_KINDS),
  cards_done: z.number().int(),
  cards_total: z.number().int(),
  criteria_done: z.number().int().describe('Ticked criteria of its cards, whatever the cards’ status'),
  criteria_total: z.number().int(),
  ends_on: z.string().nullable(),
  created_at: z.string(),
});
export type Milestone = z.infer<typeof milestoneSchema>;

/** Letters, digits, dots and hyphens: no `_`, so a ref never looks like an id (`ms_…`). Matched case-insensitively. */
export const milestoneRef = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,31}$/, 'must be 1 to 32 letters, digits, dots or hyphens, such as M3');

export const createMilestoneInput = z.object({
  ref: milestoneRef,
  name: label(200),
  kind: z.enum(MILESTONE_KINDS).default('sprint'),
  ends_on: isoDate.optional(),
});

export const listMilestonesInput = z.object(pageQuery);
/** A milestone named in a path: its ref, matched case-insensitively, or its id (`ms_…`). */
export const milestoneKey = z.string().trim().min(1).max(64).describe('Milestone ref (or id)');
export const milestoneStatusInput = z.object({ ref: milestoneKey });

interface MilestoneRow {
  id: string;
  ref: string;
  name: string;
  kind: MilestoneKind;
  ends_on: string | null;
  created_at: string;
  cards_done: number;
  cards_total: number;
  criteria_done: number;
  criteria_total: number;
}

export function presentMilestone(row: MilestoneRow): Milestone {
  return {
    id: row.id,
    ref: row.ref,
    name: row.name,
    kind: row.kind,
    cards_done: row.cards_done,
    cards_total: row.cards_total,
    criteria_done: row.criteria_done,
    criteria_total: row.criteria_total,
    ends_on: row.ends_on,
    created_at: toIso(row.created_at),
  };
}

/**
 * A milestone's id and its ref as created, by ref (case-insensitive) or id; 404
 * `milestone_not_found` otherwise. With `lock`, the row stays locked until the transaction
 * ends, so a rename and a delete of one milestone take turns.
 */
export async function findMilestone(db: Kysely<Database>, orgId: string, key: string, lock = false): Promise<{ id: string; ref: string }> {
  const { byId, value } = keyLookup(key, 'ms');
  const row = await milestoneByKey.executeTakeFirst(db, { byId, lock }, { org: orgId, key: value });
  if (!row) throw notFound('milestone', key);
  return row;
}

/** The organization's milestones matching a `keyLookup`: `… where org_id = $1 and (id = $2 | lower(ref) = $2)`. */
export function milestonesByKey(db: Kysely<Database>, byId: boolean, org: string, value: string) {
  const q = db.selectFrom('milestones').where('org_id', '=', org);
  return byId ? q.where('id', '=', value) : q.where(sql<string>`lower(ref)`, '=', value);
}

const milestoneByKey = new QueryTemplate('findMilestone', (db, shape: { byId: boolean; lock: boolean }, v: { org: string; key: string }) => {
  const q = milestonesByKey(db, shape.byId, v.org, v.key).select(['id', 'ref']);
  return shape.lock ? q.forUpdate() : q;
});

/** The id of a milestone by ref (case-insensitive) or id; 404 `milestone_not_found` otherwise. */
export async function findMilestoneId(db: Kysely<Database>, orgId: string, key: string): Promise<string> {
  return (await findMilestone(db, orgId, key)).id;
}

export async function createMilestone(ctx: Ctx, input: z.infer<typeof createMilestoneInput>): Promise<Milestone> {
  try {
    const row = await ctx.db
      .insertInto('milestones')
      .values({
        id: newId('ms'),
        org_id: ctx.principal.orgId,
        ref: input.ref,
        name: input.name,
        kind: input.kind,
        ends_on: input.ends_on ?? null,
      })
      .returning(['id', 'ref', 'name', 'kind', 'ends_on', 'created_at'])
      .executeTakeFirstOrThrow();
    return presentMilestone({ ...row, cards_done: 0, cards_total: 0, criteria_done: 0, criteria_total: 0 });
  } catch (err) {
    if (uniqueViolation(err) !== undefined) {
      throw new AppError('milestone_conflict', 409, 'Another milestone already has that ref.');
    }
    throw err;
  }
}

/** Milestones with their status, newest first. */
export async function listMilestones(ctx: Ctx, input: z.infer<typeof listMilestonesInput>): Promise<Page<Milestone>> {
  const scope = ['milestones', ctx.principal.orgId];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = milestonesWithStatus(ctx.db, ctx.principal.orgId);
  if (at) q = q.where(before('m.created_at', 'm.id', at, 'timestamptz'));
  const rows = await q.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: r.created_at, id: r.id }), presentMilestone, scope);
}

/**
 * One milestone with its card and criteria counts, by ref (or id): `getMilestone` and
 * `getMilestoneStatus` both answer with it, the same numbers every face shows.
 */
export async function getMilestoneStatus(ctx: Ctx, input: z.infer<typeof milestoneStatusInput>): Promise<Milestone> {
  const { byId, value } = keyLookup(input.ref, 'ms');
  const row = await milestoneStatus.executeTakeFirst(ctx.db, byId ? 'id' : 'ref', { org: ctx.principal.orgId, key: value });
  if (!row) throw notFound('milestone', input.ref);
  return presentMilestone(row);
}

const milestoneStatus = new QueryTemplate('getMilestoneStatus', (db, by: 'id' | 'ref', v: { org: string; key: string }) => {
  const q = milestonesWithStatus(db, v.org);
  return by === 'id' ? q.where('m.id', '=', v.key) : q.where(sql<string>`lower(m.ref)`, '=', v.key);
});
