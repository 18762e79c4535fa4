import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecondOrg } from './helpers/second-org.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Milestone board', slug: 'mb', ref_prefix: 'MB' } })).status).toBe(201);
});
afterAll(async () => t?.close());

async function tickAll(cardId: string) {
  const criteria = (await t.api('GET', `/v1/cards/${cardId}/criteria`)).body.data;
  for (const c of criteria) {
    expect((await t.api('PATCH', `/v1/cards/${cardId}/criteria/${c.id}`, { body: { done: true } })).status).toBe(200);
  }
}

describe('milestones', () => {
  it('creates milestones with a ref unique per organization, case-insensitively', async () => {
    const m = await t.api('POST', '/v1/milestones', { body: { ref: 'M3', name: 'March', kind: 'deadline', ends_on: '2026-03-31' } });
    expect(m.status).toBe(201);
    expect(m.body).toMatchObject({ ref: 'M3', name: 'March', kind: 'deadline', ends_on: '2026-03-31', cards_done: 0, cards_total: 0, criteria_done: 0, criteria_total: 0 });
    expect(m.body.id).toMatch(/^ms_/);
    const dup = await t.api('POST', '/v1/milestones', { body: { ref: 'm3', name: 'Again' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('milestone_conflict');
    const sprint = await t.api('POST', '/v1/milestones', { body: { ref: 'S1', name: 'Sprint 1' } });
    expect(sprint.body.kind).toBe('sprint');
    const bad = await t.api('POST', '/v1/milestones', { body: { ref: 'has space', name: 'x', kind: 'epic' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['kind', 'ref']);

    const list = await t.api('GET', '/v1/milestones?limit=1');
    expect(list.body.data.map((x: { ref: string }) => x.ref)).toEqual(['S1']);
    const next = await t.api('GET', `/v1/milestones?limit=1&cursor=${list.body.next_cursor}`);
    expect(next.body.data.map((x: { ref: string }) => x.ref)).toEqual(['M3']);

    const other = await createSecondOrg(t.server.db.db);
    const theirs = await t.api('POST', '/v1/milestones', { token: other.token, body: { ref: 'M3', name: 'Theirs' } });
    expect(theirs.status).toBe(201);
    expect((await t.api('GET', '/v1/milestones/M3/status')).body.name).toBe('March');
    expect((await t.api('GET', '/v1/milestones/S1/status', { token: other.token })).body.code).toBe('milestone_not_found');
  });

  it('counts criteria independently of card status', async () => {
    await t.api('POST', '/v1/milestones', { body: { ref: 'R1', name: 'Release 1' } });
    const doneCard = (await t.api('POST', '/v1/cards', { body: { board: 'mb', title: 'done, nothing ticked', milestone: 'R1', criteria: ['a', 'b'] } })).body;
    const busy = (await t.api('POST', '/v1/cards', { body: { board: 'mb', title: 'busy, all ticked', milestone: 'R1', criteria: ['c', 'd'] } })).body;
    await t.api('POST', '/v1/cards', { body: { board: 'mb', title: 'not in the milestone', criteria: ['e'] } });
    expect((await t.api('PATCH', `/v1/cards/${doneCard.id}`, { body: { workflow_status: 'done' } })).status).toBe(200);
    expect((await t.api('PATCH', `/v1/cards/${busy.id}`, { body: { workflow_status: 'in_progress' } })).status).toBe(200);
    await tickAll(busy.id);

    const status = await t.api('GET', '/v1/milestones/r1/status');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ ref: 'R1', cards_done: 1, cards_total: 2, criteria_done: 2, criteria_total: 4 });
    const listed = (await t.api('GET', '/v1/milestones')).body.data.find((m: { ref: string }) => m.ref === 'R1');
    expect(listed).toEqual(status.body);
    expect((await t.api('GET', `/v1/milestones/${status.body.id}/status`)).body).toEqual(status.body);

    // A card leaving the milestone takes its counts with it.
    await t.api('PATCH', `/v1/cards/${busy.id}`, { body: { milestone: null } });
    expect((await t.api('GET', '/v1/milestones/R1/status')).body).toMatchObject({ cards_done: 1, cards_total: 1, criteria_done: 0, criteria_total: 2 });
    await t.api('DELETE', `/v1/cards/${doneCard.id}`);
    expect((await t.api('GET', '/v1/milestones/R1/status')).body).toMatchObject({ cards_done: 0, cards_total: 0, criteria_done: 0, criteria_total: 0 });
  });

  it('answers 404 milestone_not_found for an unknown ref', async () => {
    const res = await t.api('GET', '/v1/milestones/NOPE/status');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'milestone_not_found', http_status: 404 });
  });
});

describe('OpenAPI', () => {
  it('documents every card, todo, board, criterion and milestone operation', async () => {
    const res = await t.api('GET', '/v1/openapi.json', { token: null });
    expect(res.status).toBe(200);
    const ids = new Set<string>();
    for (const item of Object.values(res.body.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const op of Object.values(item)) if (op.operationId) ids.add(op.operationId);
    }
    for (const name of [
      'listBoards', 'createBoard', 'updateBoard',
      'listCards', 'createCard', 'getCard', 'moveCard', 'deleteCard',
      'listCriteria', 'addCriterion', 'updateCriterion',
      'listTodos', 'createTodo', 'completeTodo', 'reopenTodo',
      'listMilestones', 'createMilestone', 'getMilestoneStatus',
    ]) {
      expect(ids, name).toContain(name);
    }
    expect(res.body.paths['/milestones/{ref}/status'].get.operationId).toBe('getMilestoneStatus');
    expect(res.body.paths['/cards/{id}'].patch.operationId).toBe('moveCard');
  });
});
