import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONFLICT_ATTEMPTS } from '../src/operations/write-transaction.js';
import { connectTo } from './helpers/database.js';
import { expectEnvelope } from './helpers/envelope.js';
import { waitForBlockedQuery } from './helpers/locks.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * Postgres answers some writes with "try again": a deadlock (40P01) or a serialization
 * failure (40001) rolls the transaction back. tack runs the whole write again, idempotency
 * record included, a few times, and then answers 503 with Retry-After, never 500. A plan
 * made stale by another process's schema change (0A000) is prepared again.
 *
 * The faults are real Postgres errors: a trigger in this test's own database raises them
 * on insert into todos, as many times as `fault_plan` says (a sequence counts attempts,
 * since a sequence is not rolled back with the transaction), and a real deadlock is made
 * with a transaction of the test's own.
 */
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
  await t.database!.query(`
    create table fault_plan (code text not null, failures int not null);
    create sequence fault_attempts;
    create function inject_fault() returns trigger language plpgsql as $$
    declare plan fault_plan;
    begin
      select * into plan from fault_plan limit 1;
      if plan is not null and nextval('fault_attempts') <= plan.failures then
        raise exception 'injected fault' using errcode = plan.code;
      end if;
      return new;
    end $$;
    create trigger inject_fault before insert on todos for each row execute function inject_fault();
  `);
});
afterAll(async () => t?.close());

async function planFaults(code: string, failures: number): Promise<void> {
  await t.database!.query('delete from fault_plan');
  await t.database!.query('insert into fault_plan values ($1, $2)', [code, failures]);
  await t.database!.query(`select setval('fault_attempts', 1, false)`);
}

/** How many times the trigger ran since `planFaults`. */
async function attempts(): Promise<number> {
  const [row] = await t.database!.query<{ last_value: string; is_called: boolean }>('select last_value, is_called from fault_attempts');
  return row!.is_called ? Number(row!.last_value) : 0;
}

const count = async (sql: string, params: unknown[] = []) => Number((await t.database!.query(`select count(*)::int as n from ${sql}`, params))[0].n);

beforeEach(async () => {
  await t.database!.query('delete from fault_plan');
});

describe('deadlocks and serialization failures', () => {
  for (const code of ['40P01', '40001']) {
    it(`runs the whole write again after ${code}, applying it once with one idempotency record`, async () => {
      await planFaults(code, 2);
      const headers = { 'idempotency-key': `retried-${code}` };
      const res = await t.api('POST', '/v1/todos', { headers, body: { title: `retried ${code}` } });
      expect(res.status, res.text).toBe(201);
      expect(await attempts()).toBe(3);
      expect(await count('todos where title = $1', [`retried ${code}`])).toBe(1);
      expect(await count('idempotency_keys where key = $1', [`retried-${code}`])).toBe(1);
      const again = await t.api('POST', '/v1/todos', { headers, body: { title: `retried ${code}` } });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(res.text);
      expect(await count('todos where title = $1', [`retried ${code}`])).toBe(1);
    });

    it(`answers 503 with Retry-After when ${code} persists, having applied nothing`, async () => {
      await planFaults(code, 1_000);
      const headers = { 'idempotency-key': `persistent-${code}` };
      const res = await t.api('POST', '/v1/todos', { headers, body: { title: `persistent ${code}` } });
      expectEnvelope(res, 503, 'database_busy');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/injected|todos|trigger/);
      expect(await attempts()).toBe(CONFLICT_ATTEMPTS);
      expect(await count('todos where title = $1', [`persistent ${code}`])).toBe(0);
      expect(await count('idempotency_keys where key = $1', [`persistent-${code}`])).toBe(0);
      // The client's retry with the same key, once the database lets it, is the first write.
      await t.database!.query('delete from fault_plan');
      expect((await t.api('POST', '/v1/todos', { headers, body: { title: `persistent ${code}` } })).status).toBe(201);
      expect(await count('todos where title = $1', [`persistent ${code}`])).toBe(1);
    });
  }

  it('wins a real deadlock against another transaction by running again', async () => {
    await t.api('POST', '/v1/boards', { body: { name: 'Deadlocks', slug: 'dl', ref_prefix: 'DL' } });
    const card = (await t.api('POST', '/v1/cards', { body: { board: 'dl', title: 'Contended' } })).body;
    const todo = (await t.api('POST', '/v1/todos', { body: { title: 'Contended criterion', card_id: card.id } })).body;
    const other: pg.Client = await connectTo(t.database!.url);
    try {
      // The request detects the deadlock (1 s by default); this transaction waits it out.
      await other.query(`begin; set local deadlock_timeout = '60s'`);
      await other.query('update criteria set title = title where id = $1', [todo.criterion_id]);
      // Ticking the criterion locks the mirroring todo first, then waits for the criterion's row.
      const tick = t.api('PATCH', `/v1/cards/${card.id}/criteria/${todo.criterion_id}`, { body: { done: true } });
      await waitForBlockedQuery(t.database!.query, t.database!.name, '%from "criteria"%for update%');
      // Now this transaction wants the todo: a deadlock, which Postgres breaks by failing the request's transaction.
      await other.query('select id from todos where id = $1 for update', [todo.id]);
      await other.query('rollback');
      const res = await tick;
      expect(res.status, res.text).toBe(200);
      expect(res.body.done).toBe(true);
      expect((await t.api('GET', '/v1/todos?limit=100')).body.data.find((x: { id: string }) => x.id === todo.id).done).toBe(true);
    } finally {
      await other.end();
    }
  });
});

describe('a schema change by another process', () => {
  it('prepares statements again whose cached plan changed result type, for reads and writes', async () => {
    await t.api('POST', '/v1/boards', { body: { name: 'Plans', slug: 'plans', ref_prefix: 'PL' } });
    expect((await t.api('GET', '/v1/boards')).status).toBe(200);
    expect((await t.api('PATCH', '/v1/boards/plans', { body: { gated: true } })).status).toBe(200);
    // Another process (a migration of the next release, say) changes a column's type.
    await t.database!.query('alter table boards alter column name type varchar(200)');
    const read = await t.api('GET', '/v1/boards');
    expect(read.status, read.text).toBe(200);
    const write = await t.api('PATCH', '/v1/boards/plans', { body: { gated: false } });
    expect(write.status, write.text).toBe(200);
    expect(write.body.gated).toBe(false);
    for (let i = 0; i < 5; i++) expect((await t.api('GET', '/v1/boards')).status).toBe(200);
  });
});
