import type { Scenario } from '../scenario.js';
import { owner } from './seed.js';

const BOARD_CARDS = 100_000;
const MILESTONE_CARDS = 500;
const CRITERIA_PER_CARD = 10;

/**
 * getMilestoneStatus for a milestone of 500 cards with 10 criteria each, and listCards with
 * a status filter on a board of 100,000 cards.
 */
export const cards: Scenario = {
  name: 'cards',
  async setup(ctx) {
    const { orgId } = await owner(ctx.pool);
    process.stdout.write(`seeding ${BOARD_CARDS} cards and a milestone of ${MILESTONE_CARDS} × ${CRITERIA_PER_CARD} criteria …\n`);
    await ctx.pool.query(
      `insert into boards (id, org_id, name, slug, ref_prefix, next_ref) values
         ('brd_bench', $1, 'Bench', 'bench', 'BEN', ${BOARD_CARDS + 1}),
         ('brd_bench_ms', $1, 'Milestone', 'bench-ms', 'BMS', ${MILESTONE_CARDS + 1})`,
      [orgId],
    );
    await ctx.pool.query(`insert into milestones (id, org_id, ref, name, kind) values ('ms_bench', $1, 'M3', 'Bench sprint', 'sprint')`, [orgId]);
    await ctx.pool.query(
      `insert into cards (id, org_id, board_id, number, title, workflow_status, created_at, updated_at)
       select 'crd_b' || g, $1, 'brd_bench', g, 'Card ' || g,
              (array['backlog','in_progress','in_review','done'])[1 + g % 4],
              now() - make_interval(secs => g), now() - make_interval(secs => g)
       from generate_series(1, ${BOARD_CARDS}) g`,
      [orgId],
    );
    await ctx.pool.query(
      `insert into cards (id, org_id, board_id, number, title, workflow_status, milestone_id)
       select 'crd_m' || g, $1, 'brd_bench_ms', g, 'Milestone card ' || g,
              (array['backlog','in_progress','in_review','done'])[1 + g % 4], 'ms_bench'
       from generate_series(1, ${MILESTONE_CARDS}) g`,
      [orgId],
    );
    await ctx.pool.query(
      `insert into criteria (id, org_id, card_id, position, title, done)
       select 'crit_m' || g || '_' || k, $1, 'crd_m' || g, k, 'Criterion ' || k, (g + k) % 3 = 0
       from generate_series(1, ${MILESTONE_CARDS}) g, generate_series(1, ${CRITERIA_PER_CARD}) k`,
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
