import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Milestones of one organization with their status, in one query: a lateral aggregate per
 * milestone over its cards and their criteria, so a page of milestones (or one) costs one
 * round trip, never one query per card.
 *
 * ```sql
 * select m.*, s.* from milestones m cross join lateral (
 *   select count(distinct c.id) as cards_total,
 *          count(distinct c.id) filter (where c.workflow_status = 'done') as cards_done,
 *          count(k.id) as criteria_total, count(k.id) filter (where k.done) as criteria_done
 *   from cards c left join criteria k on k.card_id = c.id
 *   where c.milestone_id = m.id and c.org_id = m.org_id) s
 * where m.org_id = $1
 * ```
 *
 * Criteria are counted whatever their card's status: a done card with open criteria still
 * counts them open, and ticked criteria on an open card still count as done.
 */
export function milestonesWithStatus(db: Kysely<Database>, orgId: string) {
  return db
    .selectFrom('milestones as m')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('cards as c')
          .leftJoin('criteria as k', 'k.card_id', 'c.id')
          .whereRef('c.milestone_id', '=', 'm.id')
          .whereRef('c.org_id', '=', 'm.org_id')
          .select([
            sql<number>`count(distinct c.id)::int`.as('cards_total'),
            sql<number>`(count(distinct c.id) filter (where c.workflow_status = 'done'))::int`.as('cards_done'),
            sql<number>`count(k.id)::int`.as('criteria_total'),
            sql<number>`(count(k.id) filter (where k.done))::int`.as('criteria_done'),
          ])
          .as('s'),
      (join) => join.onTrue(),
    )
    .where('m.org_id', '=', orgId)
    .select([
      'm.id',
      'm.ref',
      'm.name',
      'm.kind',
      'm.ends_on',
      'm.created_at',
      's.cards_done',
      's.cards_total',
      's.criteria_done',
      's.criteria_total',
    ]);
}
