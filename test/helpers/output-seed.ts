import type { TestDatabase } from './database.js';

/**
 * A small database where every id, time and text is fixed, so the reads' JSON can be
 * compared byte for byte across versions of tack. Texts carry what JSON must escape (quotes,
 * backslashes, newlines, control characters, `</script>`, non-ASCII, emoji); timestamps
 * carry microseconds.
 */
export async function seedForOutput(database: TestDatabase, tokenHash: string): Promise<void> {
  const q = (text: string, params: unknown[] = []) => database.query(text, params);
  const t0 = `timestamptz '2026-01-05 08:00:00.123456+00'`;
  const odd = `'He said "hi" \\\\ back' || chr(10) || 'line ' || chr(9) || 'tab ' || chr(1) || ' </script> é ü 日本 🎉'`;
  await q(`insert into organizations (id, slug, name, created_at) values ('org_out', 'default', 'Dé "fault"', ${t0})`);
  await q(
    `insert into members (id, org_id, name, email, role, slack_user_id, tz, created_at, updated_at) values
     ('mem_owner', 'org_out', 'Owner Ö', 'owner@example.com', 'owner', 'U0OWNER', 'Europe/Berlin', ${t0}, ${t0}),
     ('mem_b', 'org_out', ${odd}, null, 'member', null, null, ${t0} + interval '1 second', ${t0} + interval '1 second'),
     ('mem_c', 'org_out', 'Viewer', 'viewer@example.com', 'viewer', 'U0VIEW', 'Asia/Kolkata', ${t0} + interval '2.876543 seconds', ${t0})`,
  );
  await q(
    `insert into tokens (id, org_id, member_id, created_by, name, token_hash, hint, scopes, agent, expires_at, created_at) values
     ('tok_owner', 'org_out', 'mem_owner', 'mem_owner', 'owner token', $1, 'tack_live_AAAA…', '{read,write,config:write}', false, null, ${t0}),
     ('tok_agent', 'org_out', 'mem_b', 'mem_owner', ${odd}, md5('agent'), 'tack_live_BBBB…', '{read}', true, ${t0} + interval '30 days', ${t0} + interval '1.000001 seconds'),
     ('tok_old', 'org_out', 'mem_c', 'mem_owner', 'old', md5('old'), 'tack_live_CCCC…', '{read,write}', false, null, ${t0} + interval '2 seconds')`,
    [tokenHash],
  );
  await q(
    `insert into boards (id, org_id, name, slug, ref_prefix, gated, next_ref, created_at, updated_at) values
     ('brd_a', 'org_out', 'Alpha ${'$'}', 'alpha', 'ALP', true, 41, ${t0}, ${t0}),
     ('brd_b', 'org_out', ${odd}, 'beta', 'BET', false, 41, ${t0} + interval '0.5 seconds', ${t0} + interval '3 seconds')`,
  );
  await q(
    `insert into milestones (id, org_id, ref, name, kind, ends_on, created_at, updated_at) values
     ('ms_1', 'org_out', 'M1', 'First', 'sprint', '2026-03-01', ${t0}, ${t0}),
     ('ms_2', 'org_out', 'Ship-2.0', ${odd}, 'deadline', null, ${t0} + interval '0.000001 seconds', ${t0})`,
  );
  await q(
    `insert into cards (id, org_id, board_id, number, title, workflow_status, due_on, milestone_id, created_at, updated_at)
     select 'crd_' || lpad(g::text, 3, '0'), 'org_out', case when g % 3 = 0 then 'brd_b' else 'brd_a' end, g,
            case when g % 7 = 0 then ${odd} else 'Card ' || g end,
            (array['backlog','in_progress','in_review','done'])[1 + g % 4],
            case when g % 2 = 0 then date '2026-02-01' + g end,
            case when g % 5 = 0 then 'ms_1' when g % 5 = 1 then 'ms_2' end,
            ${t0} + make_interval(secs => g * 1.25), ${t0} + make_interval(secs => g * 2.000001)
     from generate_series(1, 40) g`,
  );
  await q(
    `insert into criteria (id, org_id, card_id, position, title, done, created_at, updated_at)
     select 'crit_' || g || '_' || k, 'org_out', 'crd_' || lpad(g::text, 3, '0'), k, case when k = 2 then ${odd} else 'Criterion ' || k end,
            (g + k) % 3 = 0, ${t0} + make_interval(secs => k), ${t0}
     from generate_series(1, 40) g, generate_series(1, 3) k where g % 4 <> 0`,
  );
  // Descriptions and a discussion (migration 0023): Markdown with odd text, comments in one instant kept in order by seq.
  await q(`update cards set description = case when number % 2 = 0 then '# Plan\n\n- ' || ${odd} else ${odd} end where number % 3 = 1`);
  await q(
    `insert into comments (id, org_id, card_id, author_member_id, author_name, author_agent, body, created_at, updated_at)
     select 'cmt_' || lpad(g::text, 3, '0'), 'org_out', 'crd_007', case when g % 3 = 0 then null else 'mem_b' end, 'Gone Ö', g % 2 = 0,
            case when g % 2 = 0 then 'see @mem_owner ' || ${odd} else 'Comment ' || g end,
            ${t0} + make_interval(secs => (g / 2) * 1.000001), ${t0} + make_interval(secs => g * 2)
     from generate_series(1, 5) g`,
  );
  await q(
    `insert into card_assignees (card_id, member_id, position)
     select 'crd_' || lpad(g::text, 3, '0'), case when g % 2 = 0 then 'mem_owner' else 'mem_b' end, 0 from generate_series(1, 40) g where g % 3 <> 0
     union all
     select 'crd_' || lpad(g::text, 3, '0'), 'mem_c', 1 from generate_series(1, 40) g where g % 5 = 0`,
  );
  await q(
    `insert into todos (id, member_id, org_id, title, priority, due_on, card_id, criterion_id, done, done_at, created_at, updated_at)
     select 'todo_' || lpad(g::text, 3, '0'), 'mem_owner', case when g % 6 = 0 then null else 'org_out' end,
            case when g % 7 = 0 then ${odd} else 'Todo ' || g end, (array['urgent','high','medium','low'])[1 + g % 4],
            case when g % 5 <> 0 then date '2026-02-10' + (g % 11) - 5 end,
            case when g % 4 = 0 then 'crd_' || lpad(g::text, 3, '0') end, null,
            g % 3 = 0, case when g % 3 = 0 then ${t0} + make_interval(secs => g * 3) end,
            ${t0} + make_interval(secs => g * 0.75), ${t0}
     from generate_series(1, 30) g`,
  );
  await q(
    `insert into snippets (id, org_id, created_by, type, name, slug, category, tags, visibility, version, body, created_at, updated_at)
     select 'snp_' || lpad(g::text, 3, '0'), 'org_out', case when g % 4 = 0 then 'mem_b' else 'mem_owner' end,
            (array['html','sql','json','txt'])[1 + g % 4], case when g % 7 = 0 then ${odd} else 'Snippet ' || g end, 'snippet-' || g,
            case when g % 3 = 0 then null else 'cat/' || (g % 5) end,
            case when g % 2 = 0 then array['alpha', 't' || (g % 3)] else '{}' end,
            case when g % 8 = 0 or g % 9 = 0 then 'private' else 'team' end, 1 + g % 2,
            case when g % 5 = 0 then ${odd} else 'select * from things where id = ' || g || ';' end,
            ${t0} + make_interval(secs => g + 0.876543), ${t0} + make_interval(secs => g * 1.5 + 0.000001)
     from generate_series(1, 30) g`,
  );
  await q(
    `insert into snippet_versions (snippet_id, version, org_id, created_by, name, category, tags, body, created_at)
     select s.id, v, s.org_id, s.created_by, s.name || ' v' || v, s.category, s.tags, s.body || ' -- v' || v, ${t0} + make_interval(secs => v)
     from snippets s, generate_series(1, 2) v where v <= s.version`,
  );
  await q(
    `insert into snippet_links (link, snippet_id, org_id, revoked_at)
     select 'link' || lpad(g::text, 40, '0'), 'snp_' || lpad(g::text, 3, '0'), 'org_out', null from generate_series(1, 30) g where g % 10 <> 0
     union all select 'old' || lpad(g::text, 40, '0'), 'snp_' || lpad(g::text, 3, '0'), 'org_out', ${t0} from generate_series(1, 30) g where g % 3 = 0`,
  );
  await q(
    `insert into events (org_id, type, created_at, actor_member_id, actor_name, actor_agent, face, subject_type, subject_id, subject_ref, card_id, audience, member_id, changes, data)
     select 'org_out', (array['card.created','card.moved','criterion.updated','todo.completed','token.created','card.move_refused'])[1 + g % 6],
            ${t0} + make_interval(secs => g * 0.5 + 0.000001), case when g % 4 = 0 then 'mem_b' else 'mem_owner' end,
            case when g % 4 = 0 then ${odd} else 'Owner Ö' end, g % 4 = 0, (array['web','slack','mcp','cli','api','job'])[1 + g % 6],
            (array['card','card','criterion','todo','token','card'])[1 + g % 6],
            (array['crd_005','crd_005','crit_5_1','todo_004','tok_agent','crd_005'])[1 + g % 6],
            case when g % 6 in (0, 1, 2, 5) then 'ALP-5' end, case when g % 6 in (0, 1, 2, 5) then 'crd_005' end,
            case g % 6 when 3 then 'owner' when 4 then 'admins' else 'org' end, case g % 6 when 3 then 'mem_owner' when 4 then 'mem_b' end,
            case when g % 6 = 1 then '{"workflow_status": ["backlog", "in_progress"]}'::jsonb else '{}'::jsonb end,
            jsonb_build_object('id', 'x' || g, 'title', ${odd})
     from generate_series(1, 12) g`,
  );
  // Webhooks and their attempts (migration 0020), each attempt of an event of the organization.
  await q(
    `insert into webhooks (id, org_id, url, events, description, enabled, secret, created_by, created_at, updated_at, disabled_at, failing_since) values
     ('wh_a', 'org_out', 'https://hooks.example.com/tack?x="1"', '{card.,todo.completed}', ${odd}, true, 'whsec_AAAA', 'mem_owner', ${t0}, ${t0}, null, ${t0} + interval '1.000001 seconds'),
     ('wh_b', 'org_out', 'https://other.example.com/', '{*}', null, false, 'whsec_BBBB', 'mem_owner', ${t0} + interval '0.5 seconds', ${t0}, ${t0} + interval '3 days', null)`,
  );
  const seqs = await q(`select seq::text from events order by seq limit 3`);
  const [e1, e2, e3] = seqs.map((r: { seq: string }) => r.seq);
  await q(
    `insert into webhook_deliveries (id, webhook_id, event_id, event_seq, attempt, position, status, response_status, duration_ms, error, next_attempt_at, lease_until, created_at, updated_at) values
     ('whd_1', 'wh_a', 'evt_' || $1, $1::bigint, 1, 1, 'succeeded', 204, 31, null, null, null, ${t0} + interval '1.000001 seconds', ${t0}),
     ('whd_2', 'wh_a', 'evt_' || $2, $2::bigint, 1, 2, 'failed', 500, 10012, ${odd}, ${t0} + interval '7.000001 seconds', null, ${t0} + interval '2.000001 seconds', ${t0}),
     ('whd_3', 'wh_a', 'evt_' || $2, $2::bigint, 2, 2, 'pending', null, null, null, ${t0} + interval '7.000001 seconds', null, ${t0} + interval '2.000002 seconds', ${t0}),
     ('whd_4', 'wh_a', 'evt_' || $3, $3::bigint, 1, 3, 'failed', null, 3, 'connection refused', null, null, ${t0} + interval '2.000002 seconds', ${t0})`,
    [e1, e2, e3],
  );
  await q('analyze');
}
