import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

/** The embedded default (PGlite) runs the same queries: lateral counts, row locks, counters. */
let t: TestServer;
let dir: string;
let now = new Date('2026-07-01T21:30:00Z');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tack-work-'));
  t = await startTestServer({ DATA_DIR: dir }, { clock: () => now });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cards, todos and milestones on PGlite', () => {
  it('runs the whole flow', async () => {
    const me = (await t.api('GET', '/v1/me')).body;
    expect((await t.api('POST', '/v1/boards', { body: { name: 'Eng', slug: 'eng', ref_prefix: 'ENG', gated: true } })).status).toBe(201);
    expect((await t.api('POST', '/v1/milestones', { body: { ref: 'M1', name: 'One' } })).status).toBe(201);
    const clash = await t.api('POST', '/v1/boards', { body: { name: 'Eng 2', slug: 'eng-2', ref_prefix: 'ENG' } });
    expect(clash.status).toBe(409);
    expect(clash.body.user_message).toMatch(/prefix/);

    const created = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        t.api('POST', '/v1/cards', { body: { board: 'eng', title: `c${i}`, milestone: 'M1', criteria: ['x', 'y'], assignee_ids: [me.member.id] } }),
      ),
    );
    expect(created.map((r) => r.body.ref).sort()).toEqual(['ENG-1', 'ENG-2', 'ENG-3', 'ENG-4', 'ENG-5']);

    const agent = (await t.api('POST', '/v1/tokens', { body: { name: 'bot', scopes: ['read', 'write'], agent: true } })).body.token;
    const refused = await t.api('PATCH', '/v1/cards/ENG-1', { token: agent, body: { workflow_status: 'done', title: 'nope' } });
    expect(refused.body.code).toBe('gated_move_requires_human');
    expect((await t.api('PATCH', '/v1/cards/ENG-1', { body: { workflow_status: 'done' } })).body.workflow_status).toBe('done');

    const todo = (await t.api('POST', '/v1/todos', { body: { title: 'linked', card_id: 'ENG-2', due_on: '2026-07-02' } })).body;
    const results = await Promise.all(Array.from({ length: 5 }, () => t.api('POST', `/v1/todos/${todo.id}/done`)));
    expect(new Set(results.map((r) => r.body.done_at)).size).toBe(1);
    expect((await t.api('GET', '/v1/cards/ENG-2')).body).toMatchObject({ criteria_done: 1, criteria_total: 3 });
    expect((await t.api('GET', '/v1/milestones/M1/status')).body).toMatchObject({ cards_done: 1, cards_total: 5, criteria_done: 1, criteria_total: 11 });
    expect((await t.api('GET', '/v1/cards?assignee=me&status=done')).body.data.map((c: { ref: string }) => c.ref)).toEqual(['ENG-1']);

    // 21:30Z on 1 July is already 2 July in Tokyo.
    await t.api('POST', `/v1/todos/${todo.id}/reopen`);
    expect((await t.api('GET', '/v1/todos?due=today')).body.data).toEqual([]);
    await t.api('PATCH', `/v1/members/${me.member.id}`, { body: { tz: 'Asia/Tokyo' } });
    expect((await t.api('GET', '/v1/todos?due=today&done=false')).body.data.map((x: { id: string }) => x.id)).toEqual([todo.id]);
    expect((await t.api('GET', '/v1/milestones')).body.data[0]).toMatchObject({ ref: 'M1', criteria_done: 0 });
    now = new Date('2026-07-02T16:00:00Z');
    expect((await t.api('GET', '/v1/todos?due=overdue')).body.data.map((x: { id: string }) => x.id)).toEqual([todo.id]);
  });

  it('corrects, reorders and deletes through the one embedded connection', async () => {
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'edit', milestone: 'M1', criteria: ['a', 'b', 'c'] } })).body;
    const ids = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data.map((c: { id: string }) => c.id);
    expect((await t.api('PATCH', `/v1/cards/${card.id}/criteria/${ids[2]}`, { body: { position: 0 } })).body.position).toBe(0);
    expect((await t.api('DELETE', `/v1/cards/${card.id}/criteria/${ids[0]}`)).status).toBe(204);
    const titles = (await t.api('GET', `/v1/cards/${card.id}/criteria`)).body.data.map((c: { title: string }) => c.title);
    expect(titles).toEqual(['c', 'b']);
    const todo = (await t.api('POST', '/v1/todos', { body: { title: 'b2', card_id: card.id, criterion_id: ids[1] } })).body;
    expect((await t.api('PATCH', `/v1/todos/${todo.id}`, { body: { title: 'b renamed', due_on: null } })).body.title).toBe('b renamed');
    expect((await t.api('GET', `/v1/cards/${card.id}/moves`)).body.data).toHaveLength(4);
    expect((await t.api('PATCH', '/v1/milestones/M1', { body: { ref: 'M2' } })).body.ref).toBe('M2');
    expect((await t.api('DELETE', '/v1/milestones/M2')).status).toBe(204);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).body.milestone).toBeNull();
    expect((await t.api('DELETE', `/v1/todos/${todo.id}`)).status).toBe(204);
  });
});
