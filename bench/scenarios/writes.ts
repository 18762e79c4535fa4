import { randomBytes } from 'node:crypto';
import type { Request as LoadRequest } from 'autocannon';
import { rawBaselines } from '../raw.js';
import type { Scenario } from '../scenario.js';
import { owner } from './seed.js';

// tack's insert statements as kysely renders them (its query log), for the raw routes.
const INSERT_TODO =
  'insert into "todos" ("id", "member_id", "org_id", "title", "priority", "due_on", "card_id", "criterion_id", "done", "done_at") ' +
  'values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "id", "title", "priority", "due_on", "org_id", "card_id", "criterion_id", "done", "done_at", "created_at"';
const INSERT_SNIPPET =
  'insert into "snippets" ("id", "org_id", "created_by", "type", "name", "slug", "category", "tags", "visibility", "version", "body") ' +
  'values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)';
const SNIPPET_BODY = 'select * from things where id = 42; '.repeat(5);

/** A write with a new Idempotency-Key (and, for snippets, a new name) on every request. */
function write(path: string, token: string, body: () => Record<string, unknown>): LoadRequest {
  return {
    method: 'POST',
    path,
    setupRequest(req) {
      return {
        ...req,
        body: JSON.stringify(body()),
        headers: { ...req.headers, authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(12).toString('hex') },
      };
    },
  };
}

/**
 * createTodo and createSnippet with an Idempotency-Key (the write and its idempotency record
 * in one transaction), against a raw route running the same insert alone.
 */
export const writes: Scenario = {
  name: 'writes',
  async setup(ctx) {
    const { orgId, memberId } = await owner(ctx.pool);
    const todo = () => ({ title: 'Bench todo', priority: 'high' });
    const snippet = () => ({ name: `Bench snippet ${randomBytes(6).toString('hex')}`, type: 'sql', body: SNIPPET_BODY });
    return [
      {
        name: 'createTodo with Idempotency-Key',
        url: ctx.url,
        method: 'POST',
        requests: [write('/v1/todos', ctx.token, todo)],
        baselines: await rawBaselines(
          ctx,
          'create-todo',
          [{ sql: INSERT_TODO, params: ['todo_{{id}}', memberId, null, 'Bench todo', 'high', null, null, null, false, null] }],
          'one',
          { write: true },
        ),
      },
      {
        name: 'createSnippet with Idempotency-Key',
        url: ctx.url,
        method: 'POST',
        requests: [write('/v1/snippets', ctx.token, snippet)],
        baselines: await rawBaselines(
          ctx,
          'create-snippet',
          [{ sql: INSERT_SNIPPET, params: ['snp_{{id}}', orgId, memberId, 'sql', 'Bench snippet {{id}}', 'bench-snippet-{{id}}', null, [], 'team', 1, SNIPPET_BODY] }],
          'one',
          { write: true },
        ),
      },
    ];
  },
};
