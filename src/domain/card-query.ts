import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { Database } from '../db/schema.js';
import { col } from './json-text.js';

/**
 * Cards of one organization with everything their output shows, in one query: the board's
 * prefix and gate, the milestone's ref, criteria counts and assignees from lateral
 * subqueries (derived, never stored, so they cannot drift from the criteria themselves).
 *
 * ```sql
 * select c.*, b.ref_prefix, b.gated, m.ref, k.criteria_total, k.criteria_done, a.assignee_ids
 * from cards c join boards b on b.id = c.board_id left join milestones m on m.id = c.milestone_id
 * cross join lateral (select count(*), count(*) filter (where done) from criteria where card_id = c.id) k
 * cross join lateral (select array_agg(member_id order by position) from card_assignees where card_id = c.id) a
 * where c.org_id = $1
 * ```
 */
export function cardsWithDetails(db: Kysely<Database> | QueryCreator<Database>, orgId: string) {
  return cardsJoined(db, orgId).select([
    'c.id',
    'c.board_id',
    'c.number',
    'c.title',
    'c.workflow_status',
    'c.description',
    'c.due_on',
    'c.created_at',
    'c.updated_at',
    'b.ref_prefix',
    'b.gated',
    'm.ref as milestone_ref',
    'kc.criteria_total',
    'kc.criteria_done',
    'ca.assignee_ids',
  ]);
}

/**
 * `presentCard` of a `cardsWithDetails` row, as JSON text built by Postgres (the same keys in
 * the same order, the same bytes); select it from `cardsJoined`. The card's own columns come
 * stored (`json_body`, `json_tail`: migration 0013); what other tables hold is put in between.
 */
export const cardJson = sql.raw<string>(
  [
    `'{"id":' || to_json(${col('c.id')})::text`,
    `',"ref":' || to_json(${col('b.ref_prefix')} || '-' || ${col('c.number')})::text`,
    col('c.json_body'),
    `',"description":' || coalesce(to_json(${col('c.description')})::text, 'null')`,
    `',"gated":' || ${col('b.gated')}::text`,
    `',"criteria_done":' || ${col('kc.criteria_done')}`,
    `',"criteria_total":' || ${col('kc.criteria_total')}`,
    `',"due_on":' || coalesce(to_json(${col('c.due_on')})::text, 'null')`,
    `',"assignee_ids":' || array_to_json(${col('ca.assignee_ids')})::text`,
    `',"milestone":' || coalesce(to_json(${col('m.ref')})::text, 'null')`,
    `',"branch_name":' || to_json(card_branch(${col('b.ref_prefix')}, ${col('c.number')}, ${col('c.title_slug')}))::text`,
    col('c.json_tail'),
  ].join(' || '),
);

/**
 * The joins and lateral aggregates of `cardsWithDetails`, for a selection of one's own. `db`
 * may be a `with` whose `cards` is a data-modifying CTE (an update's `returning *`): the
 * cards are then the ones it wrote, as they now are (`moveCard`).
 */
export function cardsJoined(db: Kysely<Database> | QueryCreator<Database>, orgId: string) {
  return db
    .selectFrom('cards as c')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .leftJoin('milestones as m', 'm.id', 'c.milestone_id')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('criteria as k')
          .whereRef('k.card_id', '=', 'c.id')
          .select([
            sql<number>`count(*)::int`.as('criteria_total'),
            sql<number>`(count(*) filter (where k.done))::int`.as('criteria_done'),
          ])
          .as('kc'),
      (join) => join.onTrue(),
    )
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('card_assignees as a')
          .whereRef('a.card_id', '=', 'c.id')
          .select(sql<string[]>`coalesce(array_agg(a.member_id order by a.position), '{}')`.as('assignee_ids'))
          .as('ca'),
      (join) => join.onTrue(),
    )
    .where('c.org_id', '=', orgId);
}
