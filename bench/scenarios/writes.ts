import { randomBytes } from 'node:crypto';
import type { Request as LoadRequest } from 'autocannon';
import { rawBaselines, type RawStatement } from '../raw.js';
import type { Scenario } from '../scenario.js';
import { owner } from './seed.js';

/** Seeded rows per variant for the writes that change an existing row: each request takes the next. */
const POOL = 100_000;

// tack's statements as Postgres logged them (`log_statement = all`), for the raw routes.
const INSERT_TODO =
  'insert into "todos" ("id", "member_id", "org_id", "title", "priority", "due_on", "card_id", "criterion_id", "done", "done_at", "source_url") ' +
  'values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning "id", "title", "priority", "due_on", "org_id", "card_id", "criterion_id", "done", "done_at", "source_url", "created_at"';
// A snippet is written with its first version and its public link (contract: every snippet has
// both from its creation), as tack writes them: one statement.
const INSERT_SNIPPET =
  'with s as (insert into "snippets" ("id", "org_id", "created_by", "type", "name", "slug", "category", "tags", "visibility", "version", "body") ' +
  'values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning "id", "org_id", "created_by", "type", "name", "slug", "category", "tags", "visibility", "version", "body", "created_at", "updated_at"), ' +
  'v as (insert into "snippet_versions" ("snippet_id", "version", "org_id", "created_by", "name", "category", "tags", "body") select "id", "version", "org_id", "created_by", "name", "category", "tags", "body" from s), ' +
  'l as (insert into "snippet_links" ("link", "snippet_id", "org_id") select $12, "id", "org_id" from s returning "link") ' +
  'select s.*, l."link" from s, l';
const COMPLETE_TODO =
  'update "todos" set "done" = true, "done_at" = now(), "updated_at" = now() where "member_id" = $1 and "id" = $2 ' +
  'returning "id", "title", "priority", "due_on", "org_id", "card_id", "criterion_id", "done", "done_at", "source_url", "created_at"';
// The move, with the board read in the same statement (the gate is the board's), answering the card's own columns.
const MOVE_CARD =
  'update "cards" as "c" set "workflow_status" = (case when $1::int % 2 = 0 then \'in_progress\' else \'backlog\' end), "updated_at" = now() ' +
  'from "boards" as "b" where "b"."id" = "c"."board_id" and "c"."org_id" = $2 and "c"."id" = $3 and not "b"."gated" ' +
  'returning "c"."id", "c"."board_id", "c"."number", "c"."title", "c"."workflow_status", "c"."due_on", "c"."created_at", "c"."updated_at", "b"."ref_prefix", "b"."gated"';
const SNIPPET_BODY = 'select * from things where id = 42; '.repeat(5);

/** Claims the idempotency record (a fresh key: nothing stored yet), as the first statement of the write. */
const CLAIM =
  'insert into "idempotency_keys" ("token_id", "operation", "key", "request_hash", "status", "body") values ($1, $2, $3, $4, 0, null) on conflict do nothing';
/** Stores the answer in it, as the last statement before commit. */
const STORE = 'update "idempotency_keys" set "status" = $1, "body" = $2 where "token_id" = $3 and "operation" = $4 and "key" = $5';
/** A stored answer of a typical size. */
const ANSWER = JSON.stringify({ id: 'x'.repeat(20), title: 'Bench todo', priority: 'high', due_on: null, done: false, created_at: new Date().toISOString(), pad: 'x'.repeat(120) });

/** The event row a write records in its transaction (contract §10), shaped as tack's `events` table. */
function eventStatement(orgId: string, memberId: string, type: string, subjectType: string, subjectId: string): RawStatement {
  return {
    sql:
      'insert into "events" ("org_id", "type", "created_at", "actor_member_id", "actor_name", "actor_agent", "face", "subject_type", "subject_id", "subject_ref", "card_id", "audience", "member_id", "changes", "data") ' +
      "values ($1, $2, now(), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) returning 'evt_' || \"seq\" as \"id\"",
    params: [orgId, type, memberId, 'Owner', false, 'api', subjectType, subjectId, null, null, 'org', null, '{}', ANSWER],
  };
}

/**
 * The honest baseline of a write: the same work as tack's in one transaction through `pg`:
 * claim the idempotency record, write the row, record the event, store the answer, commit.
 */
function transaction(operation: string, write: RawStatement, event: RawStatement): RawStatement[] {
  const key = '{{id}}';
  return [
    { sql: CLAIM, params: ['tok_bench_raw', operation, key, 'h'.repeat(64)] },
    write,
    event,
    { sql: STORE, params: [200, ANSWER, 'tok_bench_raw', operation, key] },
  ];
}

/** A write with a new Idempotency-Key on every request; `next` builds the request's path and body from a counter. */
function write(method: string, token: string, next: (n: number) => { path: string; body?: Record<string, unknown> }): LoadRequest {
  let n = 0;
  return {
    method,
    setupRequest(req) {
      const { path, body } = next(n++);
      return {
        ...req,
        path,
        ...(body ? { body: JSON.stringify(body) } : {}),
        headers: { ...req.headers, authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(12).toString('hex') },
      };
    },
  };
}

/**
 * createTodo, createSnippet, completeTodo and moveCard with an Idempotency-Key, each against
 * a raw route doing the same work in one transaction (see `transaction`). completeTodo and
 * moveCard take the next of 100,000 seeded rows on every request (tack's and the raw route's
 * own rows); a card moves to in_progress the first time round and back to backlog the next.
 */
export const writes: Scenario = {
  name: 'writes',
  async setup(ctx) {
    const { orgId, memberId } = await owner(ctx.pool);
    await seedWrites(ctx.pool, orgId, memberId);
    const todo = () => ({ title: 'Bench todo', priority: 'high' });
    const snippet = () => ({ name: `Bench snippet ${randomBytes(6).toString('hex')}`, type: 'sql', body: SNIPPET_BODY });
    const raw = { write: true, transaction: true, answer: 1, name: 'raw: the same work in one pg transaction' };
    return [
      {
        name: 'createTodo with Idempotency-Key',
        url: ctx.url,
        method: 'POST',
        requests: [write('POST', ctx.token, () => ({ path: '/v1/todos', body: todo() }))],
        baselines: await rawBaselines(
          ctx,
          'create-todo',
          transaction(
            'createTodo',
            { sql: INSERT_TODO, params: ['todo_{{id}}', memberId, null, 'Bench todo', 'high', null, null, null, false, null, null] },
            eventStatement(orgId, memberId, 'todo.created', 'todo', 'todo_{{id}}'),
          ),
          'one',
          raw,
        ),
      },
      {
        name: 'createSnippet with Idempotency-Key',
        url: ctx.url,
        method: 'POST',
        requests: [write('POST', ctx.token, () => ({ path: '/v1/snippets', body: snippet() }))],
        baselines: await rawBaselines(
          ctx,
          'create-snippet',
          transaction(
            'createSnippet',
            { sql: INSERT_SNIPPET, params: ['snp_{{id}}', orgId, memberId, 'sql', 'Bench snippet {{id}}', 'bench-snippet-{{id}}', null, [], 'team', 1, SNIPPET_BODY, 'link_{{id}}'] },
            eventStatement(orgId, memberId, 'snippet.created', 'snippet', 'snp_{{id}}'),
          ),
          'one',
          raw,
        ),
      },
      {
        name: 'completeTodo with Idempotency-Key',
        url: ctx.url,
        method: 'POST',
        requests: [write('POST', ctx.token, (n) => ({ path: `/v1/todos/todo_wt_${n % POOL}/done` }))],
        baselines: await rawBaselines(
          ctx,
          'complete-todo',
          transaction(
            'completeTodo',
            { sql: COMPLETE_TODO, params: [memberId, 'todo_wr_{{n}}'] },
            eventStatement(orgId, memberId, 'todo.completed', 'todo', 'todo_wr_{{n}}'),
          ),
          'one',
          { ...raw, cycle: POOL },
        ),
      },
      {
        name: 'moveCard with Idempotency-Key',
        url: ctx.url,
        method: 'PATCH',
        requests: [
          write('PATCH', ctx.token, (n) => ({
            path: `/v1/cards/crd_wt_${n % POOL}`,
            body: { workflow_status: Math.floor(n / POOL) % 2 === 0 ? 'in_progress' : 'backlog' },
          })),
        ],
        baselines: await rawBaselines(
          ctx,
          'move-card',
          transaction(
            'moveCard',
            { sql: MOVE_CARD, params: ['{{turn}}', orgId, 'crd_wr_{{n}}'] },
            eventStatement(orgId, memberId, 'card.moved', 'card', 'crd_wr_{{n}}'),
          ),
          'one',
          { ...raw, cycle: POOL },
        ),
      },
    ];
  },
};

/** 100,000 open todos and 100,000 backlog cards for tack (`_wt_`) and as many for the raw route (`_wr_`). */
async function seedWrites(pool: import('pg').Pool, orgId: string, memberId: string): Promise<void> {
  process.stdout.write(`seeding ${POOL} todos and ${POOL} cards per variant for the writes …\n`);
  for (const v of ['wt', 'wr']) {
    await pool.query(
      `insert into todos (id, member_id, org_id, title, priority)
       select 'todo_${v}_' || g, $1, $2, 'Bench todo ' || g, 'medium' from generate_series(0, ${POOL - 1}) g`,
      [memberId, orgId],
    );
  }
  await pool.query(`insert into boards (id, org_id, name, slug, ref_prefix, next_ref) values ('brd_writes', $1, 'Writes', 'writes', 'WRI', ${2 * POOL + 1})`, [orgId]);
  await pool.query(
    `insert into cards (id, org_id, board_id, number, title, workflow_status)
     select 'crd_' || v || '_' || g, $1, 'brd_writes', g + (case when v = 'wt' then 1 else ${POOL + 1} end), 'Write card ' || g, 'backlog'
     from generate_series(0, ${POOL - 1}) g, unnest(array['wt', 'wr']) v`,
    [orgId],
  );
  await pool.query('analyze');
}
