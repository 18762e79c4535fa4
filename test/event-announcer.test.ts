import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { eventAnnouncer } from '../src/db/event-announcer.js';
import { EVENTS_CHANNEL } from '../src/db/event-notifications.js';
import { authenticateToken } from '../src/domain/authenticate.js';
import type { Principal } from '../src/domain/context.js';
import { execute, type Runtime } from '../src/operations/execute.js';
import { operationNamed } from '../src/operations/index.js';
import { parseOperationInput } from '../src/operations/operation-input.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * A write's events are announced after its commit (`eventAnnouncer`), not by a NOTIFY in its
 * own transaction, which made every writer's commit wait on Postgres's notify lock: the
 * events statement sends none, a listener hears the last `seq` once the write has committed,
 * and writes that commit together share announcements without leaving one out.
 */
let t: TestServer;
let handle: DbHandle;
let listener: pg.Client;
let statements: string[] = [];
let heard: string[] = [];
let rt: Runtime;
let owner: Principal;
let announcer: ReturnType<typeof eventAnnouncer>;

beforeAll(async () => {
  t = await startTestServer();
  listener = new pg.Client({ connectionString: t.database!.url });
  await listener.connect();
  listener.on('notification', (n) => heard.push(n.payload ?? ''));
  await listener.query(`listen ${EVENTS_CHANNEL}`);
  handle = await connect({ databaseUrl: t.database!.url, dataDir: '', poolSize: 4, log: (event) => void statements.push(event.query.sql) });
  announcer = eventAnnouncer(handle.db, pino({ level: 'silent' }));
  rt = { db: handle.db, clock: () => new Date(), publicBaseUrl: 'http://127.0.0.1/p', eventsCommitted: announcer.announce };
  owner = (await authenticateToken(t.server.db.db, t.token, new Date())).principal;
});
afterAll(async () => {
  await announcer?.stop();
  await listener?.end();
  await handle?.close();
  await t?.close();
});

const lastSeq = async () => String((await listener.query('select max(seq)::text as seq from events')).rows[0].seq);
const createTodo = (title: string) => {
  const op = operationNamed('createTodo');
  return execute(rt, op, owner, parseOperationInput(op, { title, priority: 'high' }), randomBytes(8).toString('hex'));
};

it('announces a write after its commit, with its last seq, and sends no NOTIFY inside the write', async () => {
  statements = [];
  heard = [];
  await createTodo('announced');
  const seq = await lastSeq();
  await waitFor('the announcement', () => heard.includes(seq));
  const commit = statements.indexOf('commit');
  expect(commit, 'the write committed').toBeGreaterThan(0);
  expect(statements.slice(0, commit).filter((s) => s.includes('pg_notify')), 'no NOTIFY in the write').toEqual([]);
  expect(statements.slice(commit + 1).filter((s) => s.includes('pg_notify'))).toHaveLength(1);
});

it('announces writes that commit together at least once each, the last seq last', async () => {
  heard = [];
  statements = [];
  await Promise.all(Array.from({ length: 20 }, (_, i) => createTodo(`together ${i}`)));
  const seq = await lastSeq();
  await waitFor('the last seq announced', () => heard.at(-1) === seq);
  const notifies = statements.filter((s) => s.includes('pg_notify')).length;
  expect(notifies).toBeGreaterThanOrEqual(1);
  expect(notifies).toBeLessThanOrEqual(20);
  // No announcement names an earlier seq than one before it (a write may commit after a later-numbered one).
  const seqs = heard.map((p) => BigInt(p.split(' ')[0]!));
  expect(seqs).toEqual([...seqs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
});
