import type { TestDatabase } from './database.js';

/**
 * A few thousand rows in every table a read goes through, in the bootstrap organization and
 * four others (so `org_id = $1` is selective), enough for the planner to show its hand.
 * The owner is linked to Slack user U0OWNER and has todos, assignments and milestone M3.
 */
export async function seedForPlans(database: TestDatabase, owner: { orgId: string; memberId: string }): Promise<void> {
  const q = (text: string, params: unknown[] = []) => database.query(text, params);
  const { orgId, memberId } = owner;
  await q(`update members set slack_user_id = 'U0OWNER', tz = 'UTC' where id = $1`, [memberId]);
  await q(`insert into organizations (id, slug, name) select 'org_p' || g, 'other-' || g, 'Other ' || g from generate_series(1, 4) g`);
  // Every organization: the bootstrap one, then org_p1..org_p4.
  const orgs = `(array[$1, 'org_p1', 'org_p2', 'org_p3', 'org_p4'])[1 + g % 5]`;
  await q(
    `insert into members (id, org_id, name, email, role, slack_user_id, tz, created_at)
     select 'mem_p' || g, ${orgs}, 'Member ' || g, 'm' || g || '@example.com', 'member', 'UP' || g,
            (array['UTC','Asia/Kolkata','Europe/Berlin','America/New_York'])[1 + g % 4], now() - make_interval(secs => g)
     from generate_series(1, 3000) g`,
    [orgId],
  );
  await q(
    `insert into tokens (id, org_id, member_id, created_by, name, token_hash, hint, scopes, created_at)
     select 'tok_p' || g, m.org_id, m.id, m.id, 'Token ' || g, md5('tok' || g), 'tack…' || g, '{read}', now() - make_interval(secs => g)
     from generate_series(1, 3000) g join members m on m.id = 'mem_p' || g`,
  );
  await q(
    `insert into snippets (id, org_id, created_by, type, name, slug, category, tags, visibility, body, created_at, updated_at)
     select 'snp_p' || g, case when g % 5 = 0 then $1 else ${orgs} end, case when g % 5 = 0 then $2 else 'mem_p' || g end,
            (array['html','sql','json','txt'])[1 + g % 4], 'Snippet ' || g, 'snippet-' || g, 'cat/' || (g % 10),
            array['t' || (g % 20)], case when g % 7 = 0 then 'private' else 'team' end,
            'select * from things where id = ' || g, now() - make_interval(secs => g), now() - make_interval(secs => g)
     from generate_series(1, 5000) g`,
    [orgId, memberId],
  );
  await q(
    `insert into snippet_versions (snippet_id, version, org_id, created_by, name, category, tags, body)
     select id, v, org_id, created_by, name, category, tags, body from snippets, generate_series(1, 2) v`,
  );
  await q(`update snippets set version = 2`);
  await q(`insert into snippet_links (link, snippet_id, org_id) select md5(id) || md5(id || 'x'), id, org_id from snippets`);
  await q(
    `insert into boards (id, org_id, name, slug, ref_prefix, next_ref, gated, created_at)
     select 'brd_p' || g, ${orgs}, 'Board ' || g, 'board-' || g, 'B' || g, 1001, g % 2 = 0, now() - make_interval(secs => g)
     from generate_series(1, 2000) g`,
    [orgId],
  );
  await q(
    `insert into milestones (id, org_id, ref, name, kind, created_at)
     select 'ms_p' || g, ${orgs}, 'M' || g, 'Milestone ' || g, 'sprint', now() - make_interval(secs => g)
     from generate_series(1, 2000) g`,
    [orgId],
  );
  // Boards brd_p5, brd_p10, … and milestones ms_p5 (ref M5), ms_p10, … belong to the bootstrap organization.
  await q(
    `insert into cards (id, org_id, board_id, number, title, workflow_status, milestone_id, created_at, updated_at)
     select 'crd_p' || g, b.org_id, b.id, g, 'Card ' || g, (array['backlog','in_progress','in_review','done'])[1 + g % 4],
            case when b.org_id = $1 and g % 3 = 0 then 'ms_p' || (5 * (1 + g % 20)) end, now() - make_interval(secs => g), now() - make_interval(secs => g)
     from generate_series(1, 8000) g join boards b on b.id = 'brd_p' || (1 + g % 2000)`,
    [orgId],
  );
  await q(
    `insert into criteria (id, org_id, card_id, position, title, done)
     select 'crit_p' || c.number || '_' || k, c.org_id, c.id, k, 'Criterion ' || k, (c.number + k) % 3 = 0
     from cards c, generate_series(1, 4) k`,
  );
  await q(
    `insert into card_assignees (card_id, member_id, position)
     select c.id, case when c.number % 10 = 0 then $1 else 'mem_p' || (5 * (1 + c.number % 600)) end, 0 from cards c`,
    [memberId],
  );
  await q(
    `insert into todos (id, member_id, org_id, title, priority, due_on, card_id, done, created_at)
     select 'todo_p' || g, case when g % 10 = 0 then $2 else 'mem_p' || (5 * (1 + g % 600)) end, case when g % 11 = 0 then null else $1 end,
            'Todo ' || g, (array['urgent','high','medium','low'])[1 + g % 4], current_date + (g % 30) - 10,
            case when g % 4 = 0 then 'crd_p' || g end, g % 3 = 0, now() - make_interval(secs => g)
     from generate_series(1, 6000) g`,
    [orgId, memberId],
  );
  await q(
    `insert into slack_subscriptions (id, org_id, milestone_ref, channel_id, cadence, tz, created_by)
     select 'sub_p' || g, m.org_id, m.ref, 'C' || g, (array['daily','weekly'])[1 + g % 2], 'UTC', $1
     from generate_series(1, 2000) g join milestones m on m.id = 'ms_p' || g`,
    [memberId],
  );
  await q(
    `insert into slack_posts (kind, subject_id, period, org_id, state, attempts, created_at, updated_at)
     select 'todo_reminder', 'todo_p' || g, (current_date - 40 + g % 30)::text, $1, 'sent', 1, now() - interval '40 days', now() - interval '40 days'
     from generate_series(1, 6000) g`,
    [orgId],
  );
  await q(
    `insert into slack_deliveries (identity, kind, received_at) select 'delivery-' || g, 'command', now() - interval '2 days' from generate_series(1, 5000) g`,
  );
  await q(
    `insert into idempotency_keys (token_id, operation, key, request_hash, status, body, created_at)
     select 'tok_p' || (1 + g % 3000), 'createTodo', 'key-' || g, md5('r' || g), 201, '{}', now() - interval '2 days' from generate_series(1, 5000) g`,
  );
  // Webhooks in every organization (wh_p5 is the bootstrap one's), each event attempted at every one of its organization.
  await q(
    `insert into webhooks (id, org_id, url, events, secret, created_by, created_at, updated_at)
     select 'wh_p' || g, ${orgs}, 'https://hooks.example.com/' || g, '{*}', 'whsec_p' || g, 'mem_p' || g, now() - make_interval(secs => g), now()
     from generate_series(1, 500) g`,
    [orgId],
  );
  await q(
    `insert into events (org_id, type, created_at, actor_member_id, actor_name, actor_agent, face, subject_type, subject_id, audience, changes)
     select ${orgs}, 'card.created', now() - make_interval(secs => g), 'mem_p' || g, 'Member', false, 'api', 'card', 'crd_p' || g, 'org', '{}'
     from generate_series(1, 3000) g`,
    [orgId],
  );
  await q(
    `insert into webhook_deliveries (id, webhook_id, event_id, event_seq, attempt, position, status, response_status, duration_ms, created_at)
     select 'whd_p' || e.seq || '_' || w.id, w.id, 'evt_' || e.seq, e.seq, 1, e.seq, 'succeeded', 200, 12, e.created_at
     from events e join webhooks w on w.org_id = e.org_id where (e.seq + length(w.id)) % 20 = 0`,
  );
  await q('analyze');
}
