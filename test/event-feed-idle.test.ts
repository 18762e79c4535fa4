import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { EventFeed } from '../src/domain/event-feed.js';
import type { EventRow } from '../src/domain/events.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * A process's event feed reads nothing while no stream is open (a read per NOTIFY was a
 * twentieth of a write's cost on the writes bench), and the first stream to open after that
 * gets live events from its own moment: never ones committed while the feed stood idle.
 * The feed here is a second one, on a pool of one connection, poked by hand: a read it
 * started would take that connection before any later statement.
 */
let t: TestServer;
let handle: DbHandle;
let statements: string[] = [];
let feed: EventFeed;

beforeAll(async () => {
  t = await startTestServer();
  handle = await connect({ databaseUrl: t.database!.url, dataDir: '', poolSize: 1, log: (event) => void statements.push(event.query.sql) });
  feed = new EventFeed(handle.db, { warn: () => {} });
});
afterAll(async () => {
  feed?.close();
  await handle?.close();
  await t?.close();
});

/** A committed event: a new personal todo, by title. */
async function write(title: string): Promise<void> {
  expect((await t.api('POST', '/v1/todos', { body: { title } })).status).toBe(201);
}

function stream(): { rows: EventRow[]; from: Promise<unknown>; unsubscribe(): void } {
  const rows: EventRow[] = [];
  const { from, unsubscribe } = feed.subscribe({ deliver: (batch) => void rows.push(...batch), end: () => {} });
  return { rows, from, unsubscribe };
}

const titles = (rows: EventRow[]) => rows.map((r) => (r.data as { title?: string } | null)?.title);

it('reads nothing on a NOTIFY while no stream is open', async () => {
  await write('unread');
  statements = [];
  feed.poke();
  feed.poke();
  await sql`select 'after the pokes' as marker`.execute(handle.db);
  expect(statements).toEqual(["select 'after the pokes' as marker"]);
});

it('hands the first stream the events committed after it opened, none from before', async () => {
  await write('before the stream');
  feed.poke();
  const s = stream();
  await s.from;
  await write('after the stream');
  feed.poke();
  await waitFor('the live event', () => titles(s.rows).includes('after the stream'));
  expect(titles(s.rows)).not.toContain('before the stream');
  s.unsubscribe();
});

it('lets go of its position when the last stream closes: the next stream does not get what came between', async () => {
  const first = stream();
  await first.from;
  await write('seen by the first');
  feed.poke();
  await waitFor('the first stream\'s event', () => titles(first.rows).includes('seen by the first'));
  first.unsubscribe();
  await write('while idle');
  feed.poke();
  await write('still idle');
  const second = stream();
  await second.from;
  await write('seen by the second');
  feed.poke();
  await waitFor('the second stream\'s event', () => titles(second.rows).includes('seen by the second'));
  expect(titles(second.rows)).toEqual(['seen by the second']);
  second.unsubscribe();
});

it('gives streams that open together one start, read once, and each gets every later event', async () => {
  feed.poke(); // no stream open: the feed lets its position go
  statements = [];
  const a = stream();
  const b = stream();
  expect(await a.from).toEqual(await b.from);
  expect(statements.filter((s) => s.includes('pg_current_snapshot'))).toHaveLength(1);
  await write('to both');
  feed.poke();
  await waitFor('both streams', () => titles(a.rows).includes('to both') && titles(b.rows).includes('to both'));
  a.unsubscribe();
  b.unsubscribe();
});
