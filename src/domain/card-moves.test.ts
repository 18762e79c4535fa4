import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainDatabase, type DomainDatabase } from '../../test/helpers/domain.js';
import { createBoard, createBoardInput } from './boards.js';
import { createCard, createCardInput } from './card-creation.js';
import { listCardMoves, moveCard, moveCardInput, movesOn } from './card-moves.js';
import type { Principal } from './context.js';
import type { AppError } from './errors.js';

/**
 * The gate (contract §7) as the domain enforces it, with no face in between: on a gated board
 * only a human moves a card to done; `listCardMoves` answers what `moveCard` then does.
 */

let d: DomainDatabase;
let agent: Principal;
let viewer: Principal;
let readOnly: Principal;

beforeAll(async () => {
  d = await domainDatabase();
  agent = { ...d.owner, agent: true };
  viewer = { ...d.owner, role: 'viewer' };
  readOnly = { ...d.owner, scopes: ['read'] };
});
afterAll(async () => d?.close());

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: AppError) => ({ code: err.code, status: err.status }),
  );

let boards = 0;
async function cardOn(gated: boolean) {
  const ctx = d.ctx();
  const n = ++boards;
  const board = await d.write(ctx, (c) => createBoard(c, createBoardInput.parse({ name: `Board ${n}`, ref_prefix: `B${n}`, gated })));
  return d.write(ctx, (c) => createCard(c, createCardInput.parse({ board: board.id, title: 'Ship it' })));
}

describe('movesOn', () => {
  const allowed = (p: Principal, gated: boolean) =>
    Object.fromEntries(movesOn(p, gated).data.map((m) => [m.workflow_status, m.code ?? 'allowed']));

  it('lets a human move anywhere, gated or not, and an agent anywhere but done on a gated board', () => {
    const everywhere = { backlog: 'allowed', in_progress: 'allowed', in_review: 'allowed', done: 'allowed' };
    expect(allowed(d.owner, true)).toEqual(everywhere);
    expect(allowed(agent, false)).toEqual(everywhere);
    expect(allowed(agent, true)).toEqual({ ...everywhere, done: 'gated_move_requires_human' });
  });

  it('refuses every move to a viewer and to a token without write, whatever the gate', () => {
    for (const gated of [false, true]) {
      expect(new Set(Object.values(allowed(viewer, gated)))).toEqual(new Set(['forbidden_role']));
      expect(new Set(Object.values(allowed(readOnly, gated)))).toEqual(new Set(['insufficient_scope']));
    }
  });
});

describe('moveCard', () => {
  it("refuses an agent's move to done on a gated board with 403, and the card keeps its state and title", async () => {
    const card = await cardOn(true);
    const move = moveCardInput.parse({ id: card.id, workflow_status: 'done', title: 'Renamed by the agent' });
    expect(await refusal(d.write(d.ctx(agent), (c) => moveCard(c, move)))).toEqual({ code: 'gated_move_requires_human', status: 403 });
    const [row] = await d.database.query('select workflow_status, title from cards where id = $1', [card.id]);
    expect(row).toEqual({ workflow_status: 'backlog', title: 'Ship it' });
  });

  it('lets a human make that move, and an agent make it on an ungated board', async () => {
    const gated = await cardOn(true);
    const moved = await d.write(d.ctx(), (c) => moveCard(c, moveCardInput.parse({ id: gated.id, workflow_status: 'done' })));
    expect(moved.workflow_status).toBe('done');
    const open = await cardOn(false);
    const byAgent = await d.write(d.ctx(agent), (c) => moveCard(c, moveCardInput.parse({ id: open.id, workflow_status: 'done' })));
    expect(byAgent.workflow_status).toBe('done');
  });

  it('agrees with listCardMoves for every caller and target state', async () => {
    const card = await cardOn(true);
    for (const principal of [d.owner, agent, viewer, readOnly]) {
      const moves = await listCardMoves(d.ctx(principal), { id: card.id });
      for (const { workflow_status, allowed, code } of moves.data) {
        const outcome = await refusal(
          // Rolled back after the move, so each try starts from the same card.
          d.write(d.ctx(principal), async (c) => {
            await moveCard(c, moveCardInput.parse({ id: card.id, workflow_status }));
            throw { code: 'moved', status: 200 };
          }),
        );
        expect(outcome, `${principal.role}${principal.agent ? ' agent' : ''} to ${workflow_status}`).toEqual(allowed ? { code: 'moved', status: 200 } : { code, status: 403 });
      }
    }
  });
});
