import type { Scenario } from '../scenario.js';
import { CRITERIA_PER_CARD, MILESTONE_CARDS, owner, seedMilestoneM3 } from './seed.js';

const BOARD_CARDS = 100_000;

/**
 * getMilestoneStatus for a milestone of 500 cards with 10 criteria each, and listCards with
 * a status filter on a board of 100,000 cards.
 */
export const cards: Scenario = {
  name: 'cards',
  async setup(ctx) {
    const { orgId } = await owner(ctx.pool);
    await seedMilestoneM3(ctx.pool, orgId);
    process.stdout.write(`seeding ${BOARD_CARDS} cards …\n`);
    await ctx.pool.query(
      `insert into boards (id, org_id, name, slug, ref_prefix, next_ref) values ('brd_bench', $1, 'Bench', 'bench', 'BEN', ${BOARD_CARDS + 1})`,
      [orgId],
    );
    await ctx.pool.query(
      `insert into cards (id, org_id, board_id, number, title, workflow_status, created_at, updated_at)
       select 'crd_b' || g, $1, 'brd_bench', g, 'Card ' || g,
              (array['backlog','in_progress','in_review','done'])[1 + g % 4],
              now() - make_interval(secs => g), now() - make_interval(secs => g)
       from generate_series(1, ${BOARD_CARDS}) g`,
      [orgId],
    );
    await ctx.pool.query('analyze');
    const auth = { authorization: `Bearer ${ctx.token}` };
    return [
      { name: `getMilestoneStatus (${MILESTONE_CARDS} cards × ${CRITERIA_PER_CARD} criteria)`, url: `${ctx.url}/v1/milestones/M3/status`, headers: auth },
      { name: `listCards board+status filter (${BOARD_CARDS / 1000}k-card board)`, url: `${ctx.url}/v1/cards?board=bench&status=in_review`, headers: auth },
    ];
  },
};
