import type { Ctx } from './context.js';
import { snapshot, type SubjectKey } from './event-subjects.js';
import { insertEvents } from './events.js';

/**
 * Records `card.move_refused` (contract §10) about a card whose move was refused: the card as
 * it is (nothing of it changed) with the refusal's code and the state asked for, so an
 * agent's attempt stays visible. In `ctx.db`'s transaction; a card that is gone records nothing.
 */
export async function recordMoveRefusal(ctx: Ctx, key: SubjectKey, code: string, workflowStatus: unknown): Promise<void> {
  const card = await snapshot(ctx, key);
  if (!card) return;
  const refusal = { code, workflow_status: workflowStatus ?? null };
  await insertEvents(ctx, [{ type: 'card.move_refused', subject: { type: key.type, id: String(card.data.id) }, snapshot: card, changes: {}, data: { ...card.data, refusal } }]);
}
