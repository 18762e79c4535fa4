import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventDescriptions } from '../src/operations/event-descriptions.js';
import { operations } from '../src/operations/index.js';
import { subscribeBoardOp, subscribeMilestoneOp, unsubscribeBoardOp, unsubscribeMilestoneOp } from '../src/operations/slack.js';
import { markNotificationsReadOp } from '../src/operations/notifications.js';
import { applyGithubPullRequestOp } from '../src/operations/github.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;

/** Events stored after `seq`, oldest first, as rows. */
async function eventsAfter(seq: string) {
  return t.server.db.db.selectFrom('events').selectAll().where('seq', '>', seq).orderBy('seq').execute();
}

async function lastSeq(): Promise<string> {
  const row = await t.server.db.db.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
  return row?.seq ?? '0';
}

async function ok(method: string, path: string, body?: unknown, token?: string) {
  const res = await t.api(method, path, { body, token });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

const writes = [...operations, subscribeMilestoneOp, unsubscribeMilestoneOp, subscribeBoardOp, unsubscribeBoardOp, markNotificationsReadOp, applyGithubPullRequestOp].filter((op) => !op.readOnly);

describe('events are recorded by the write path', () => {
  it('describes every write of the operation table (a write with no description fails here)', () => {
    const missing = writes.filter((op) => eventDescriptions[op.name] === undefined).map((op) => op.name);
    expect(missing).toEqual([]);
    expect(Object.keys(eventDescriptions).sort()).toEqual(writes.map((op) => op.name).sort());
  });

  it('records the events of every described write, with changes and data', async () => {
    // Each step: the write, and the types of the events it records, in order.
    const seen = new Map<string, string[]>();
    const step = async (name: string, types: string[], call: () => Promise<unknown>) => {
      const from = await lastSeq();
      const answer = await call();
      const rows = await eventsAfter(from);
      expect(rows.map((r) => r.type), name).toEqual(types);
      seen.set(name, types);
      return { answer: answer as any, rows };
    };
    const member = await step('createMember', ['member.created'], () => ok('POST', '/v1/members', { name: 'Ev Member', role: 'member' }));
    await step('updateMember', ['member.updated'], () => ok('PATCH', `/v1/members/${member.answer.id}`, { name: 'Ev Member 2' }));
    const token = await step('createToken', ['token.created'], () => ok('POST', '/v1/tokens', { name: 'ev', scopes: ['read'] }));
    expect(JSON.stringify(token.rows[0]!.data)).not.toContain(token.answer.token);
    await step('revokeToken', ['token.revoked'], () => ok('DELETE', `/v1/tokens/${token.answer.id}`));
    await step('deleteMember', ['member.removed'], () => ok('DELETE', `/v1/members/${member.answer.id}`));

    const me = (await ok('GET', '/v1/me')).member.id as string;
    const snippet = await step('createSnippet', ['snippet.created'], () => ok('POST', '/v1/snippets', { type: 'sql', name: 'Ev snippet', body: 'select 1', visibility: 'team' }));
    // Its "after" is its answer (`answers`), exactly as getSnippet reads it, and seen by the whole organization.
    expect(snippet.rows[0]).toMatchObject({ audience: 'org', member_id: null, data: await ok('GET', `/v1/snippets/${snippet.answer.id}`) });
    const secret = await step('createSnippet', ['snippet.created'], () => ok('POST', '/v1/snippets', { type: 'sql', name: 'Ev private', body: 'select 0', visibility: 'private' }));
    expect(secret.rows[0]).toMatchObject({ audience: 'owner', member_id: me, data: await ok('GET', `/v1/snippets/${secret.answer.id}`) });
    const updated = await step('updateSnippet', ['snippet.updated'], () => ok('PATCH', `/v1/snippets/${snippet.answer.slug}`, { body: 'select 2' }));
    expect(updated.rows[0]!.changes).toMatchObject({ body: ['select 1', 'select 2'], version: [1, 2] });
    await step('rotateSnippetLink', ['snippet.link_rotated'], () => ok('POST', `/v1/snippets/${snippet.answer.id}/link`));
    await step('deleteSnippet', ['snippet.deleted'], () => ok('DELETE', `/v1/snippets/${snippet.answer.id}`));

    const board = await step('createBoard', ['board.created'], () => ok('POST', '/v1/boards', { name: 'Ev board', slug: 'evb', ref_prefix: 'EVB' }));
    await step('updateBoard', ['board.updated'], () => ok('PATCH', '/v1/boards/evb', { name: 'Ev board 2' }));
    const card = await step('createCard', ['card.created'], () => ok('POST', '/v1/cards', { board: 'evb', title: 'Ev card', criteria: ['one'] }));
    expect(card.rows[0]).toMatchObject({ subject_type: 'card', subject_id: card.answer.id, subject_ref: card.answer.ref, changes: {}, face: 'api', actor_agent: false });
    expect(card.rows[0]!.data).toEqual(card.answer);
    const moved = await step('moveCard', ['card.moved'], () => ok('PATCH', `/v1/cards/${card.answer.ref}`, { workflow_status: 'in_progress', title: 'Ev card 2' }));
    expect(moved.rows[0]!.changes).toEqual({ workflow_status: ['backlog', 'in_progress'], title: ['Ev card', 'Ev card 2'], branch_name: [expect.stringMatching(/-ev-card$/), expect.stringMatching(/-ev-card-2$/)] });
    const criterion = await step('addCriterion', ['criterion.created'], () => ok('POST', `/v1/cards/${card.answer.ref}/criteria`, { title: 'two' }));
    expect(criterion.rows[0]!.subject_ref).toBe(card.answer.ref);
    const todo = await step('createTodo', ['todo.created', 'criterion.created'], () => ok('POST', '/v1/todos', { title: 'three', card_id: card.answer.ref }));
    // A todo's "after" is its answer, its owner's alone: the caller's, as listTodos reads it.
    const listed = async (id: string) => ((await ok('GET', '/v1/todos?limit=100')).data as { id: string }[]).find((x) => x.id === id);
    expect(todo.rows[0]).toMatchObject({ audience: 'owner', member_id: me, card_id: card.answer.id, data: await listed(todo.answer.id) });
    const done = await step('completeTodo', ['todo.completed', 'criterion.updated'], () => ok('POST', `/v1/todos/${todo.answer.id}/done`));
    expect(done.rows[0]).toMatchObject({ audience: 'owner', member_id: me, card_id: card.answer.id, data: await listed(todo.answer.id), changes: { done: [false, true] } });
    await step('reopenTodo', ['todo.reopened', 'criterion.updated'], () => ok('POST', `/v1/todos/${todo.answer.id}/reopen`));
    await step('updateTodo', ['todo.updated', 'criterion.updated'], () => ok('PATCH', `/v1/todos/${todo.answer.id}`, { title: 'three!' }));
    await step('updateCriterion', ['criterion.updated', 'todo.completed'], () =>
      ok('PATCH', `/v1/cards/${card.answer.ref}/criteria/${todo.answer.criterion_id}`, { done: true }),
    );
    await step('deleteCriterion', ['criterion.deleted'], () => ok('DELETE', `/v1/cards/${card.answer.ref}/criteria/${criterion.answer.id}`));
    await step('deleteTodo', ['todo.deleted', 'criterion.updated'], () => ok('DELETE', `/v1/todos/${todo.answer.id}`));
    const comment = await step('addComment', ['comment.created'], () => ok('POST', `/v1/cards/${card.answer.ref}/comments`, { body: 'Ev comment' }));
    await step('updateComment', ['comment.updated'], () => ok('PATCH', `/v1/cards/${card.answer.ref}/comments/${comment.answer.id}`, { body: 'Ev comment 2' }));
    await step('deleteComment', ['comment.deleted'], () => ok('DELETE', `/v1/cards/${card.answer.ref}/comments/${comment.answer.id}`));
    const deleted = await step('deleteCard', ['card.deleted', 'criterion.deleted', 'criterion.deleted'], () => ok('DELETE', `/v1/cards/${card.answer.id}`));
    expect(deleted.rows[0]).toMatchObject({ changes: {}, data: null, subject_ref: card.answer.ref });
    await step('deleteBoard', ['board.deleted'], () => ok('DELETE', `/v1/boards/${board.answer.id}`));

    await step('createMilestone', ['milestone.created'], () => ok('POST', '/v1/milestones', { ref: 'EV1', name: 'Ev' }));
    await step('updateMilestone', ['milestone.updated'], () => ok('PATCH', '/v1/milestones/EV1', { ref: 'EV2' }));
    await step('deleteMilestone', ['milestone.deleted'], () => ok('DELETE', '/v1/milestones/EV2'));

    // applyGithubPullRequest runs from signed GitHub deliveries only: test/github-webhooks.test.ts checks its events.
    const described = Object.entries(eventDescriptions)
      .filter(([name, d]) => !('none' in d) && name !== 'applyGithubPullRequest')
      .map(([name]) => name);
    expect([...seen.keys()].sort()).toEqual(described.sort());
  });

  it('takes a move\'s "before" from the move itself: milestone, description, due date and assignees included', async () => {
    await ok('POST', '/v1/boards', { name: 'Mv board', slug: 'mvb', ref_prefix: 'MVB' });
    await ok('POST', '/v1/milestones', { ref: 'MV1', name: 'Mv' });
    const me = (await ok('GET', '/v1/me')).member.id as string;
    const card = await ok('POST', '/v1/cards', { board: 'mvb', title: 'Mv card' });
    const move = async (body: Record<string, unknown>) => {
      const from = await lastSeq();
      const answer = await ok('PATCH', `/v1/cards/${card.ref}`, body);
      const rows = await eventsAfter(from);
      expect(rows).toHaveLength(1);
      // The "after" is the card as getCard reads it now.
      expect(rows[0]!.data).toEqual(await ok('GET', `/v1/cards/${card.id}`));
      expect(rows[0]!.data).toEqual(answer);
      return rows[0]!;
    };
    const first = await move({ milestone: 'MV1', due_on: '2030-01-02', description: 'first' });
    expect(first.type).toBe('card.updated');
    expect(first.changes).toEqual({ milestone: [null, 'MV1'], due_on: [null, '2030-01-02'], description: [null, 'first'] });
    const second = await move({ milestone: null, description: 'second', workflow_status: 'done', title: 'Mv card 2' });
    expect(second.type).toBe('card.moved');
    expect(second.changes).toEqual({
      milestone: ['MV1', null],
      description: ['first', 'second'],
      workflow_status: ['backlog', 'done'],
      title: ['Mv card', 'Mv card 2'],
      branch_name: [expect.stringMatching(/-mv-card$/), expect.stringMatching(/-mv-card-2$/)],
    });
    const third = await move({ assignee_ids: [me], workflow_status: 'in_review' });
    expect(third.changes).toEqual({ assignee_ids: [[], [me]], workflow_status: ['done', 'in_review'] });
    // A move to where the card already is changes nothing, and records nothing.
    const from = await lastSeq();
    await ok('PATCH', `/v1/cards/${card.ref}`, { workflow_status: 'in_review' });
    expect(await eventsAfter(from)).toEqual([]);
  });

  it('takes a completed or reopened todo\'s "before" from the update itself, and its mirrored criterion\'s before that changes', async () => {
    const events = async (call: () => Promise<unknown>) => {
      const from = await lastSeq();
      await call();
      return eventsAfter(from);
    };
    const plain = await ok('POST', '/v1/todos', { title: 'Td plain', due_on: '2030-03-04' });
    const [completed] = await events(() => ok('POST', `/v1/todos/${plain.id}/done`));
    expect(completed!.type).toBe('todo.completed');
    expect(completed!.changes).toEqual({ done: [false, true], done_at: [null, expect.any(String)] });
    const [reopened] = await events(() => ok('POST', `/v1/todos/${plain.id}/reopen`));
    const doneAt = (completed!.changes as { done_at: [null, string] }).done_at[1];
    expect(reopened!.changes).toEqual({ done: [true, false], done_at: [doneAt, null] });
    await ok('POST', '/v1/boards', { name: 'Td board', slug: 'tdb', ref_prefix: 'TDB' });
    const card = await ok('POST', '/v1/cards', { board: 'tdb', title: 'Td card' });
    const mirrored = await ok('POST', '/v1/todos', { title: 'Td mirrored', card_id: card.ref });
    const rows = await events(() => ok('POST', `/v1/todos/${mirrored.id}/done`));
    expect(rows.map((r) => [r.type, r.changes])).toEqual([
      ['todo.completed', { done: [false, true], done_at: [null, expect.any(String)] }],
      ['criterion.updated', { done: [false, true] }],
    ]);
  });

  it('records nothing for a write that changes nothing, fails, or is replayed', async () => {
    const todo = await ok('POST', '/v1/todos', { title: 'quiet' });
    await ok('POST', `/v1/todos/${todo.id}/done`);
    const from = await lastSeq();
    // Done already: nothing changes.
    await ok('POST', `/v1/todos/${todo.id}/done`);
    // Fails: nothing applied.
    expect((await t.api('PATCH', `/v1/todos/${todo.id}`, { body: { title: '' } })).status).toBe(422);
    expect((await t.api('DELETE', '/v1/boards/no-such-board')).status).toBe(404);
    // Replayed: the first answer again, no second event.
    const key = { 'idempotency-key': 'ev-replay-1' };
    const first = await t.api('POST', '/v1/todos', { body: { title: 'once' }, headers: key });
    expect(first.status).toBe(201);
    const again = await t.api('POST', '/v1/todos', { body: { title: 'once' }, headers: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await eventsAfter(from)).map((r) => [r.type, r.subject_id])).toEqual([['todo.created', first.body.id]]);
  });

  it('records a gated move refused to an agent as card.move_refused, and changes nothing else', async () => {
    await ok('POST', '/v1/boards', { name: 'Ev gated', slug: 'evg', ref_prefix: 'EVG', gated: true });
    const card = await ok('POST', '/v1/cards', { board: 'evg', title: 'Gate me' });
    const agent = await ok('POST', '/v1/tokens', { name: 'ev agent', scopes: ['read', 'write'], agent: true });
    const from = await lastSeq();
    const refused = await t.api('PATCH', `/v1/cards/${card.ref}`, { token: agent.token, body: { workflow_status: 'done' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('gated_move_requires_human');
    const rows = await eventsAfter(from);
    expect(rows.map((r) => r.type)).toEqual(['card.move_refused']);
    expect(rows[0]).toMatchObject({ subject_id: card.id, subject_ref: card.ref, actor_agent: true, changes: {} });
    expect(rows[0]!.data).toMatchObject({ workflow_status: 'backlog', refusal: { code: 'gated_move_requires_human', workflow_status: 'done' } });
    expect((await ok('GET', `/v1/cards/${card.ref}`)).workflow_status).toBe('backlog');
  });

  it('names the face each change came through', async () => {
    const face = async (headers: Record<string, string>) => {
      const from = await lastSeq();
      expect((await t.api('POST', '/v1/todos', { body: { title: 'face' }, headers })).status).toBe(201);
      return (await eventsAfter(from))[0]!.face;
    };
    expect(await face({ 'user-agent': 'tack-cli/1.2.3' })).toBe('cli');
    expect(await face({ 'user-agent': 'tack-mcp/1.2.3' })).toBe('mcp');
    expect(await face({ 'user-agent': 'curl/8.0' })).toBe('api');
    const from = await lastSeq();
    const mcp = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'createTodo', arguments: { title: 'via mcp' } } }),
    });
    expect(mcp.status).toBe(200);
    expect((await eventsAfter(from)).map((r) => r.face)).toEqual(['mcp']);
  });

  it('prunes events older than 90 days', async () => {
    const { pruneEvents } = await import('../src/domain/events.js');
    const db = t.server.db.db;
    const org = (await ok('GET', '/v1/me')).org.id;
    const old = { org_id: org, type: 'todo.created', actor_member_id: null, actor_name: 'x', actor_agent: false, face: 'api', subject_type: 'todo', subject_id: 'todo_old', subject_ref: null, card_id: null, audience: 'owner' as const, member_id: null, changes: '{}', data: null };
    await db.insertInto('events').values([{ ...old, created_at: '2026-01-01T00:00:00Z' }, { ...old, subject_id: 'todo_kept', created_at: '2026-01-03T00:00:00Z' }]).execute();
    await pruneEvents({ db, clock: () => new Date('2026-04-01T12:00:00Z') });
    const left = await db.selectFrom('events').select('subject_id').where('subject_id', 'in', ['todo_old', 'todo_kept']).execute();
    expect(left.map((r) => r.subject_id)).toEqual(['todo_kept']);
  });
});
