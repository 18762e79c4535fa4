import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jobRunner } from '../jobs/index.js';
import { connect, type DbHandle } from '../src/db/connect.js';
import { authenticateToken } from '../src/domain/authenticate.js';
import type { Principal } from '../src/domain/context.js';
import type { Runtime } from '../src/operations/execute.js';
import { operationNamed } from '../src/operations/index.js';
import type { OperationCore } from '../src/operations/operation.js';
import { callOperation } from '../src/operations/call.js';
import { subscribeMilestoneOp, unsubscribeMilestoneOp } from '../src/operations/slack.js';
import { slackWebClient } from '../src/slack/web-client.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { slackEnv } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * Org isolation lives in every query, not in an earlier check: after a thing was found in
 * the caller's organization, each follow-up query still names the organization (or, for
 * todos, their member), so no refactor can turn a query by bare id into a leak. The
 * operations run here through `execute`, as every face runs them, on a database handle that
 * records each statement; every statement that reads or changes a tenant table must carry
 * such a predicate.
 */

/** Tables whose rows belong to one organization (todos: to one member, personal ones have no org). */
const TENANT_TABLES = [
  'members',
  'tokens',
  'boards',
  'cards',
  'card_assignees',
  'criteria',
  'todos',
  'milestones',
  'snippets',
  'snippet_versions',
  'snippet_links',
  'slack_subscriptions',
  'slack_posts',
];
const TOUCHES = new RegExp(`\\b(from|join|update|into)\\s+"(${TENANT_TABLES.join('|')})"`, 'i');
/** `"org_id" = $1`, `"x"."org_id" in (…)`, `"org_id" = "y"."org_id"` (quoted or not), or a todo's `"member_id" = $1`. */
const SCOPED = /\borg_id"?\s*(=|in)\s*(\$\d+|\(|"?\w+"?\."?org_id\b)|\bmember_id"?\s*(=|in)\s*(\$\d+|\()/i;

let t: TestServer;
let fake: FakeSlack;
let handle: DbHandle;
let statements: string[] = [];
let rt: Runtime;
let owner: Principal;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake));
  handle = await connect({
    databaseUrl: t.database!.url,
    dataDir: '',
    poolSize: 4,
    log: (event) => {
      statements.push(event.query.sql);
    },
  });
  const db = handle.db;
  const log = pino({ level: 'silent' });
  // Midday UTC today: the owner's reminder and the daily summary are both due.
  const noon = new Date(`${new Date().toISOString().slice(0, 10)}T12:00:00Z`);
  const clock = () => noon;
  rt = { db, clock, publicBaseUrl: 'http://127.0.0.1/p', jobs: jobRunner({ db, slack: slackWebClient(t.config, log), clock, config: t.config, log }) };
  owner = (await authenticateToken(t.server.db.db, t.token, new Date())).principal;
});
afterAll(async () => {
  await handle?.close();
  await t?.close();
  await fake?.close();
});

async function call<T = any>(name: string | OperationCore, input: Record<string, unknown>, as: Principal = owner): Promise<T> {
  const op = typeof name === 'string' ? operationNamed(name) : name;
  return (await callOperation(rt, op, as, input)) as T;
}

it('names the organization in every statement on a tenant table, for every operation', async () => {
  const me = await call('getMe', {});
  await call('updateMember', { id: me.member.id, slack_user_id: 'U0ORGSCOPE', tz: 'UTC' });
  const member = await call('createMember', { name: 'Scoped', role: 'member' });
  await call('updateMember', { id: member.id, role: 'admin' });
  await call('listMembers', {});
  const token = await call('createToken', { name: 'scoped', scopes: ['read', 'write'], member_id: member.id });
  await call('listTokens', {});
  await call('revokeToken', { id: token.id });
  await call('createBoard', { name: 'Scoped', slug: 'scoped', ref_prefix: 'SC' });
  await call('updateBoard', { id: 'scoped', gated: false });
  await call('listBoards', {});
  await call('getBoard', { id: 'scoped' });
  await call('createMilestone', { ref: 'S1', name: 'Scoped one', kind: 'sprint' });
  await call('listMilestones', {});
  await call('getMilestone', { ref: 'S1' });
  const card = await call('createCard', { board: 'scoped', title: 'Scoped card', milestone: 'S1', assignee_ids: [me.member.id], criteria: ['one'] });
  await call('moveCard', { id: card.ref, workflow_status: 'in_progress', assignee_ids: [member.id] });
  await call('getCard', { id: card.id });
  await call('listCards', { board: 'scoped', assignee: 'me' });
  await call('listCards', { milestone: 'S1' });
  await call('listCardMoves', { id: card.id });
  const criterion = await call('addCriterion', { id: card.id, title: 'two' });
  await call('listCriteria', { id: card.id });
  await call('updateCriterion', { id: card.id, criterion_id: criterion.id, position: 0 });
  const todo = await call('createTodo', { title: 'mirror', card_id: card.id, criterion_id: criterion.id, due_on: rt.clock().toISOString().slice(0, 10) });
  await call('updateCriterion', { id: card.id, criterion_id: criterion.id, done: true, title: 'two, renamed' });
  await call('reopenTodo', { id: todo.id });
  await call('completeTodo', { id: todo.id });
  await call('createTodo', { title: 'personal, due today', due_on: rt.clock().toISOString().slice(0, 10) });
  await call('listTodos', { due: 'week' });
  await call('updateTodo', { id: todo.id, title: 'mirror, renamed', due_on: null });
  await call('getMilestoneStatus', { ref: 'S1' });
  await call(subscribeMilestoneOp, { ref: 'S1', channel_id: 'C0SCOPED', cadence: 'daily', tz: 'UTC' });
  await call('runJob', { name: 'milestone-summaries' });
  await call('runJob', { name: 'todo-reminders' });
  await call(unsubscribeMilestoneOp, { ref: 'S1', channel_id: 'C0SCOPED' });
  const snippet = await call('createSnippet', { name: 'Scoped snippet', type: 'txt', body: 'v1' });
  await call('updateSnippet', { id: snippet.id, body: 'v2', name: 'Scoped snippet renamed' });
  await call('listSnippets', {});
  await call('getSnippet', { id: snippet.id });
  await call('listSnippetVersions', { id: snippet.id });
  await call('getSnippetVersion', { id: snippet.id, n: 1 });
  await call('rotateSnippetLink', { id: snippet.id });
  await call('deleteSnippet', { id: snippet.id });
  await call('deleteCriterion', { id: card.id, criterion_id: criterion.id });
  await call('deleteTodo', { id: todo.id });
  await call('updateMilestone', { milestone: 'S1', ref: 'S2', name: 'Scoped two' });
  await call('deleteMilestone', { ref: 'S2' });
  await call('deleteCard', { id: card.id });
  await call('deleteBoard', { id: 'scoped' });
  await call('deleteMember', { id: member.id });

  expect(fake.calls.filter((c) => c.method === 'chat.postMessage').length, 'a reminder and a summary were posted').toBeGreaterThanOrEqual(2);
  const touching = statements.filter((s) => TOUCHES.test(s));
  expect(touching.length).toBeGreaterThan(50);
  // A plain insert reads nothing; an upsert may change only a row whose conflict key holds the organization.
  const plainInsert = /^insert into "\w+" \([^)]*\) values \([^)]*\)(, \([^)]*\))*( on conflict \("org_id"[^)]*\) do .*| returning .*)?$/is;
  const unscoped = touching.filter((s) => !SCOPED.test(s) && !plainInsert.test(s.trim()));
  expect(unscoped, `statements on tenant tables without an organization (or member) predicate:\n${unscoped.join('\n\n')}`).toEqual([]);
});
