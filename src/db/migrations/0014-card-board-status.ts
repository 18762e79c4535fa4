import type { SqlMigration } from '../migration.js';

/**
 * A board's cards in one status, newest first (`listCards?board=…&status=…`, a board's
 * column), straight from an index. Without it Postgres walked the organization's cards in
 * that status (`cards_org_status_created`) and dropped the other boards' row by row: on the
 * bench's 100,000-card board, a quiet board's column whose cards are older than the busy
 * board's answered 227 requests a second instead of about 2,900.
 */
export const cardBoardStatus: SqlMigration = {
  name: '0014-card-board-status',
  up: ['create index cards_board_status_created on cards (board_id, workflow_status, created_at desc, id desc)'],
};
