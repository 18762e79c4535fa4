import type { z } from 'zod';
import { boardKeyInput, findBoard } from './boards.js';
import { movesOn, type CardMoves } from './card-moves.js';
import type { Ctx } from './context.js';

/**
 * Where the caller may put a card of this board, one entry per state in workflow order:
 * create it there (createCard's `workflow_status`) or move one there from another state
 * (moveCard), with the refusal's error code where not. The same rule the writes run
 * (`moveRefusal`), so a board page shows its gate for this caller without asking about a
 * card: `done` on a gated board is refused to an agent (`gated_move_requires_human`), every
 * state to a viewer (`forbidden_role`) or to a token without `write` (`insufficient_scope`).
 */
export async function listBoardMoves(ctx: Ctx, input: z.infer<typeof boardKeyInput>): Promise<CardMoves> {
  const board = await findBoard(ctx.db, ctx.principal.orgId, input.id);
  return movesOn(ctx.principal, board.gated);
}
