import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commitWithNextStatement, holdNextStatement, transactionRunner, type TransactionRunner } from '../src/db/bound-transaction.js';
import { connect, type DbHandle } from '../src/db/connect.js';
import { insertEvents, writeEvents } from '../src/domain/events.js';
import { proxiedDatabase, type BlackHoleProxy } from './helpers/black-hole-proxy.js';
import { createMigratedDatabase, type TestDatabase } from './helpers/database.js';
import { eventRow } from './helpers/domain.js';

/**
 * A write transaction on the wire (src/db/bound-transaction.ts): BEGIN goes out with the first
 * statement and, when asked, COMMIT with the last, in one write each, on a real Postgres
 * reached through a TCP proxy that counts what the pool sends. What a failure leaves: nothing.
 */
let database: TestDatabase;
let proxy: BlackHoleProxy;
let handle: DbHandle;
let transact: TransactionRunner;

beforeAll(async () => {
  database = await createMigratedDatabase();
  const proxied = await proxiedDatabase(database.url);
  proxy = proxied.proxy;
  // One connection, so every transaction shares it and finds it as the last one left it.
  handle = await connect({ databaseUrl: proxied.url, dataDir: '', poolSize: 1 });
  transact = transactionRunner(handle.db)!;
  expect(transact).toBeDefined();
  await database.query('create table wire_probe (n int primary key)');
  await sql`select 1`.execute(handle.db);
});
afterAll(async () => {
  await handle?.close();
  await proxy?.close();
  await database?.drop();
});
beforeEach(async () => {
  await database.query('delete from wire_probe');
});

const probe = async () => (await database.query<{ n: number }>('select n from wire_probe order by n')).map((r) => r.n);
const insert = (n: number) => sql`insert into wire_probe (n) values (${n})`;

/** The answer another request with the same key committed (`storedMeanwhile`). */
const OTHERS = '{"other":true}';

/** A live record of `key`, committed by another request after the write under test read the key. */
async function storedMeanwhile(key: { token_id: string; operation: string; key: string }): Promise<void> {
  await database.query(`insert into idempotency_keys (token_id, operation, key, request_hash, status, body) values ($1, $2, $3, 'other', 200, $4)`, [key.token_id, key.operation, key.key, OTHERS]);
}

const bodyOf = async (key: { key: string }) => (await database.query<{ body: string }>('select body from idempotency_keys where key = $1', [key.key]))[0]?.body;

/** The chunks the pool sent for `fn`: one per round trip, since nothing is sent while an answer is awaited. */
async function roundTrips<T>(fn: () => Promise<T>): Promise<{ trips: number; result: T }> {
  const before = proxy.chunksSent();
  const result = await fn();
  return { trips: proxy.chunksSent() - before, result };
}

it('sends BEGIN with the first statement and COMMIT with the last: three statements, three round trips', async () => {
  const { trips } = await roundTrips(() =>
    transact(async (trx) => {
      await insert(1).execute(trx);
      await insert(2).execute(trx);
      commitWithNextStatement(trx);
      await insert(3).execute(trx);
    }),
  );
  expect(trips).toBe(3);
  expect(await probe()).toEqual([1, 2, 3]);
  // Without the last statement's COMMIT, the runner sends it on its own: one more.
  const plain = await roundTrips(() => transact(async (trx) => void (await insert(4).execute(trx))));
  expect(plain.trips).toBe(2);
  expect(await probe()).toEqual([1, 2, 3, 4]);
});

it('sends nothing for a transaction that runs no statement', async () => {
  const { trips, result } = await roundTrips(() => transact(async () => 'nothing'));
  expect(result).toBe('nothing');
  expect(trips).toBe(0);
});

it('a last statement that fails commits nothing: its COMMIT answers ROLLBACK, and the connection is clean for the next', async () => {
  const failed = await transact(async (trx) => {
    await insert(1).execute(trx);
    commitWithNextStatement(trx);
    await insert(1).execute(trx);
  }).catch((err: unknown) => err);
  expect((failed as { code?: string }).code).toBe('23505');
  expect(await probe()).toEqual([]);
  // Nothing was left open on the one connection: the next transaction is a transaction of its own.
  await transact(async (trx) => void (await insert(5).execute(trx)));
  const state = await sql<{ open: boolean }>`select now() <> statement_timestamp() as open`.execute(handle.db);
  expect(state.rows[0]!.open).toBe(false);
  expect(await probe()).toEqual([5]);
});

it('a first statement that fails leaves nothing either: its transaction is rolled back', async () => {
  const failed = await transact(async (trx) => {
    await sql`select 1 / 0`.execute(trx);
  }).catch((err: unknown) => err);
  expect((failed as { code?: string }).code).toBe('22012');
  await transact(async (trx) => void (await insert(6).execute(trx)));
  expect(await probe()).toEqual([6]);
});

it('refuses a statement after the one that committed (it would run outside the transaction)', async () => {
  const failed = await transact(async (trx) => {
    commitWithNextStatement(trx);
    await insert(7).execute(trx);
    await insert(8).execute(trx);
  }).catch((err: unknown) => err);
  expect(String(failed)).toMatch(/after its transaction committed/);
  // What committed stays; what came after never ran.
  expect(await probe()).toEqual([7]);
});

it('an idempotency record stored meanwhile fails the events statement itself, so the COMMIT behind it commits nothing', async () => {
  const key = { token_id: 'tok_wire', operation: 'createTodo', key: 'k1', request_hash: 'h', status: 201, body: '{}' };
  await storedMeanwhile(key);
  const org = (await database.query<{ id: string }>('select id from organizations limit 1'))[0]?.id ?? 'org_none';
  const row = eventRow(org, { actor_name: 'wire', face: 'api', subject_id: 'todo_wire' });
  const failed = await transact(async (trx) => {
    await insert(9).execute(trx);
    await writeEvents(trx, [row], { key, orgWebhooks: false, commits: true });
  }).catch((err: unknown) => err);
  // A serialization failure: the write runs again from the start (writeTransaction) and then replays that record.
  expect((failed as { code?: string }).code).toBe('40001');
  expect(await probe()).toEqual([]);
  expect(await database.query(`select 1 from events where subject_id = 'todo_wire'`)).toEqual([]);
  expect(await bodyOf(key)).toBe(OTHERS);
});

it('so does the record of a write that records no event', async () => {
  const key = { token_id: 'tok_wire', operation: 'moveCard', key: 'k2', request_hash: 'h', status: 200, body: '{}' };
  await storedMeanwhile(key);
  const failed = await transact(async (trx) => {
    await insert(10).execute(trx);
    // No drafts: only the key record is written, in the statement that goes out with COMMIT.
    await insertEvents({ db: trx, clock: () => new Date(), principal: undefined as never }, [], key, true);
  }).catch((err: unknown) => err);
  expect((failed as { code?: string }).code).toBe('40001');
  expect(await probe()).toEqual([]);
  expect(await bodyOf(key)).toBe(OTHERS);
});

describe('a held statement (holdNextStatement)', () => {
  /** Holds `insert(n)` back with `check` on its answer, as `execute` holds the caller's re-check. */
  function held(trx: Parameters<Parameters<TransactionRunner>[0]>[0], n: number, check: (answer: unknown) => void) {
    const h = holdNextStatement(trx)!;
    const answer = insert(n).execute(trx);
    const checked = answer.then(check);
    h.checkedBy(checked);
    checked.catch(() => {});
    return h;
  }

  const refused = new Error('refused by the check');
  const refuse = (): never => {
    throw refused;
  };

  it('goes out with the statement after it, in one write with BEGIN; that one answers once the check passed', async () => {
    const order: string[] = [];
    const { trips } = await roundTrips(() =>
      transact(async (trx) => {
        const h = held(trx, 1, () => void order.push('checked'));
        await h.arrived;
        await insert(2).execute(trx);
        order.push('second answered');
        commitWithNextStatement(trx);
        await insert(3).execute(trx);
      }),
    );
    expect(order).toEqual(['checked', 'second answered']);
    expect(trips).toBe(2);
    expect(await probe()).toEqual([1, 2, 3]);
  });

  it('a failed check fails the statement sent with it, whatever that one did, and nothing commits', async () => {
    const failed = await transact(async (trx) => {
      const h = held(trx, 1, refuse);
      await h.arrived;
      // Even a statement that fails on its own: the check's refusal is the answer.
      await insert(1).execute(trx);
    }).catch((err: unknown) => err);
    expect(failed).toBe(refused);
    expect(await probe()).toEqual([]);
    // Nor does a statement that runs: it ran, but its answer never reaches the caller.
    let reached = false;
    const again = await transact(async (trx) => {
      const h = held(trx, 2, refuse);
      await h.arrived;
      await insert(3).execute(trx);
      reached = true;
    }).catch((err: unknown) => err);
    expect(again).toBe(refused);
    expect(reached).toBe(false);
    expect(await probe()).toEqual([]);
  });

  it('never goes out with COMMIT: a committing statement right after it waits for its check, which can still refuse', async () => {
    const failed = await transact(async (trx) => {
      const h = held(trx, 4, refuse);
      await h.arrived;
      commitWithNextStatement(trx);
      await insert(5).execute(trx);
    }).catch((err: unknown) => err);
    expect(failed).toBe(refused);
    expect(await probe()).toEqual([]);
    // Passed, the two go out one after the other: two round trips.
    const { trips } = await roundTrips(() =>
      transact(async (trx) => {
        await held(trx, 6, () => {}).arrived;
        commitWithNextStatement(trx);
        await insert(7).execute(trx);
      }),
    );
    expect(trips).toBe(2);
    expect(await probe()).toEqual([6, 7]);
  });

  it('goes out on its own when nothing follows it (settle, or the commit), and is dropped by a rollback before it went out', async () => {
    await transact(async (trx) => {
      const h = held(trx, 8, () => {});
      await h.arrived;
      await h.settle();
    });
    expect(await probe()).toEqual([8]);
    let answer: Promise<unknown> = Promise.resolve();
    const failed = await transact(async (trx) => {
      const h = holdNextStatement(trx)!;
      answer = insert(9).execute(trx).then(() => 'answered', (err: unknown) => err);
      await h.arrived;
      throw new Error('the work failed');
    }).catch((err: unknown) => err);
    expect(String(failed)).toMatch(/the work failed/);
    expect(String(await answer)).toMatch(/rolled back before its held statement went out/);
    expect(await probe()).toEqual([8]);
  });
});
