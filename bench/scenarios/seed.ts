import type pg from 'pg';

/** The bootstrap organization and its owner, which the bench token acts as. */
export async function owner(pool: pg.Pool): Promise<{ orgId: string; memberId: string }> {
  const { rows } = await pool.query<{ org_id: string; id: string }>(`select org_id, id from members where role = 'owner' limit 1`);
  if (!rows[0]) throw new Error('no owner: did the server bootstrap?');
  return { orgId: rows[0].org_id, memberId: rows[0].id };
}

/** Follows next_cursor `pages` times and returns the cursor of the page after that. */
export async function cursorAfter(url: string, token: string, pages: number): Promise<string> {
  let cursor: string | undefined;
  for (let i = 0; i < pages; i++) {
    const res = await fetch(cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : url, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`page ${i}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { next_cursor?: string };
    if (!page.next_cursor) throw new Error(`the list ended after ${i + 1} pages`);
    cursor = page.next_cursor;
  }
  return cursor!;
}

export const MILESTONE_CARDS = 500;
export const CRITERIA_PER_CARD = 10;

/**
 * Milestone M3 with 500 cards of 10 criteria each (a quarter of the cards in each status, a
 * third of the criteria ticked), on a board of its own. Seeded once per bench database by
 * whichever scenario asks first, so `/v1` and `/milestone` measure the same milestone.
 */
export async function seedMilestoneM3(pool: pg.Pool, orgId: string): Promise<void> {
  const created = await pool.query(
    `insert into milestones (id, org_id, ref, name, kind) values ('ms_bench', $1, 'M3', 'Bench sprint', 'sprint') on conflict do nothing`,
    [orgId],
  );
  if (created.rowCount === 0) return;
  process.stdout.write(`seeding milestone M3: ${MILESTONE_CARDS} cards × ${CRITERIA_PER_CARD} criteria …\n`);
  await pool.query(
    `insert into boards (id, org_id, name, slug, ref_prefix, next_ref) values ('brd_bench_ms', $1, 'Milestone', 'bench-ms', 'BMS', ${MILESTONE_CARDS + 1})`,
    [orgId],
  );
  await pool.query(
    `insert into cards (id, org_id, board_id, number, title, workflow_status, milestone_id)
     select 'crd_m' || g, $1, 'brd_bench_ms', g, 'Milestone card ' || g,
            (array['backlog','in_progress','in_review','done'])[1 + g % 4], 'ms_bench'
     from generate_series(1, ${MILESTONE_CARDS}) g`,
    [orgId],
  );
  await pool.query(
    `insert into criteria (id, org_id, card_id, position, title, done)
     select 'crit_m' || g || '_' || k, $1, 'crd_m' || g, k, 'Criterion ' || k, (g + k) % 3 = 0
     from generate_series(1, ${MILESTONE_CARDS}) g, generate_series(1, ${CRITERIA_PER_CARD}) k`,
    [orgId],
  );
  await pool.query('analyze');
}
