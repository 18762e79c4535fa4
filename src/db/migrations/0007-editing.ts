import type { SqlMigration } from '../migration.js';

/**
 * The editing surface (contract section 7): criteria reordered in place, cards listed by
 * milestone.
 *
 * A criterion's `position` is its sort key on the card, counted from 0 in the order the
 * criteria were made (oldest first). Reordering rewrites a card's positions in one
 * statement, so their uniqueness is checked at the end of the statement (`deferrable`)
 * rather than row by row; deleting leaves a gap, so a page already read never shifts.
 */
export const editing: SqlMigration = {
  name: '0007-editing',
  up: [
    `alter table criteria drop constraint criteria_card_id_position_key`,
    `alter table criteria add constraint criteria_card_position unique (card_id, position) deferrable initially immediate`,
    `update criteria k set position = r.position
     from (select id, (row_number() over (partition by card_id order by created_at, position, id) - 1)::int as position from criteria) r
     where r.id = k.id and k.position <> r.position`,
    `drop index cards_milestone`,
    `create index cards_milestone_created on cards (milestone_id, created_at desc, id desc) where milestone_id is not null`,
  ],
};
