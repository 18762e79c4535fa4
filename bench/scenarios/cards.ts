import { rawBaselines } from '../raw.js';
import type { Scenario } from '../scenario.js';
import { CRITERIA_PER_CARD, MILESTONE_CARDS, owner, seedMilestoneM3 } from './seed.js';

const BOARD_CARDS = 100_000;

// tack's statements as kysely renders them (its query log), for the raw routes. listCards ran
// BOARD then CARDS until session 12; tack now finds the board inside its page statement (one
// round trip), while the raw route keeps the plain two: the same rows, fetched the obvious way.
const MILESTONE_STATUS =
  'select "m"."id", "m"."ref", "m"."name", "m"."kind", "m"."ends_on", "m"."created_at", "a"."cards_done", "a"."cards_total", "b"."criteria_done", ' +
  '"b"."criteria_total" from "milestones" as "m" inner join lateral (select count(*)::int as "cards_total", (count(*) filter (where ' +
  'c.workflow_status = \'done\'))::int as "cards_done" from "cards" as "c" where "c"."milestone_id" = "m"."id" and "c"."org_id" = "m"."org_id") ' +
  'as "a" on true inner join lateral (select count(*)::int as "criteria_total", (count(*) filter (where k.done))::int as "criteria_done" ' +
  'from "cards" as "c" inner join "criteria" as "k" on "k"."card_id" = "c"."id" where "c"."milestone_id" = "m"."id" and "c"."org_id" = ' +
  '"m"."org_id") as "b" on true where "m"."org_id" = $1 and lower(m.ref) = $2';
const BOARD = 'select "id", "name", "slug", "ref_prefix", "gated", "created_at", "updated_at" from "boards" where "org_id" = $1 and "slug" = $2';
const CARDS =
  'select "c"."id", "c"."board_id", "c"."number", "c"."title", "c"."workflow_status", "c"."due_on", "c"."created_at", "c"."updated_at", ' +
  '"b"."ref_prefix", "b"."gated", "m"."ref" as "milestone_ref", "kc"."criteria_total", "kc"."criteria_done", "ca"."assignee_ids" from "cards" ' +
  'as "c" inner join "boards" as "b" on "b"."id" = "c"."board_id" left join "milestones" as "m" on "m"."id" = "c"."milestone_id" inner join ' +
  'lateral (select count(*)::int as "criteria_total", (count(*) filter (where k.done))::int as "criteria_done" from "criteria" as "k" where ' +
  '"k"."card_id" = "c"."id") as "kc" on true inner join lateral (select coalesce(array_agg(a.member_id order by a.position), \'{}\') as ' +
  '"assignee_ids" from "card_assignees" as "a" where "a"."card_id" = "c"."id") as "ca" on true where "c"."org_id" = $1 and "c"."board_id" = $2 ' +
  'and "c"."workflow_status" = $3 order by "c"."created_at" desc, "c"."id" desc limit 26';

/**
 * getMilestoneStatus for a milestone of 500 cards with 10 criteria each, and listCards with
 * a status filter on a board of 100,000 cards and on a quiet board beside it (whose cards
 * are all older: a plan that walks the organization's cards in that status reads them all).
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
    // A quiet board: 40 cards, all older than the big board's, all in the backlog.
    await ctx.pool.query(
      `insert into boards (id, org_id, name, slug, ref_prefix, next_ref) values ('brd_quiet', $1, 'Quiet', 'quiet', 'QUI', 41)`,
      [orgId],
    );
    await ctx.pool.query(
      `insert into cards (id, org_id, board_id, number, title, workflow_status, created_at, updated_at)
       select 'crd_q' || g, $1, 'brd_quiet', g, 'Quiet ' || g, 'backlog',
              now() - interval '10 years' + make_interval(secs => g), now() - interval '10 years' + make_interval(secs => g)
       from generate_series(1, 40) g`,
      [orgId],
    );
    await ctx.pool.query('analyze');
    const auth = { authorization: `Bearer ${ctx.token}` };
    /** The raw routes of a board's column: the board by slug, then its cards in that status. */
    const boardColumn = (id: string, slug: string, status: string) =>
      rawBaselines(ctx, id, [{ sql: BOARD, params: [orgId, slug] }, { sql: CARDS, params: [orgId, `brd_${slug}`, status] }], 'page');
    return [
      {
        name: `getMilestoneStatus (${MILESTONE_CARDS} cards × ${CRITERIA_PER_CARD} criteria)`,
        url: `${ctx.url}/v1/milestones/M3/status`,
        headers: auth,
        baselines: await rawBaselines(ctx, 'milestone-status', [{ sql: MILESTONE_STATUS, params: [orgId, 'm3'] }], 'one'),
      },
      {
        name: `listCards board+status filter (${BOARD_CARDS / 1000}k-card board)`,
        url: `${ctx.url}/v1/cards?board=bench&status=in_review`,
        headers: auth,
        baselines: await boardColumn('list-cards', 'bench', 'in_review'),
      },
      {
        name: 'listCards, a quiet board\'s column (40 old cards beside the 100k-card board)',
        url: `${ctx.url}/v1/cards?board=quiet&status=backlog`,
        headers: auth,
        baselines: await boardColumn('list-cards-quiet', 'quiet', 'backlog'),
      },
    ];
  },
};
