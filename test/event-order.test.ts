import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { writeEvents } from '../src/domain/events.js';
import { eventRow } from './helpers/domain.js';
import { openStream, type OpenStream } from './helpers/event-stream.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * Events commit in any order (no global lock; migration 0022): a writer that took its `seq`
 * first may commit last. Readers order by `(xid, seq)` and take only rows no running
 * transaction can precede, so a live stream and a resuming one get both writers' events,
 * each once, in one order, whatever order their commits came in.
 */
let t: TestServer;
let other: DbHandle;
const streams: OpenStream[] = [];
const track = (s: OpenStream) => (streams.push(s), s);

beforeAll(async () => {
  t = await startTestServer();
  other = await connect({ databaseUrl: t.database!.url, dataDir: '', poolSize: 1 });
});
afterAll(async () => {
  for (const s of streams) s.close();
  await other?.close();
  await t?.close();
});

async function todo(title: string): Promise<{ id: string }> {
  const res = await t.api('POST', '/v1/todos', { body: { title } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

it('delivers two writers whose commits come out of seq order to live and resuming streams, each event once', async () => {
  const orgId = (await t.database!.query<{ org_id: string }>('select org_id from members limit 1'))[0]!.org_id;
  const live = track(await openStream(t.url, t.token, { query: 'type=todo.' }));
  const first = track(await openStream(t.url, t.token, { query: 'type=todo.' }));
  await waitFor('the streams to open', () => live.frames.length > 0 && first.frames.length > 0);
  const zero = await todo('zero');
  const [seen] = await first.waitForEvents(1);
  first.close();
  await first.ended;

  // Writer A records its event (the smaller seq) and holds its transaction open ...
  let commitA!: () => void;
  const heldOpen = new Promise<void>((resolve) => (commitA = resolve));
  let recorded!: () => void;
  const aRecorded = new Promise<void>((resolve) => (recorded = resolve));
  const writerA = other.db.transaction().execute(async (trx) => {
    await writeEvents(trx, [eventRow(orgId, { actor_name: 'writer A', subject_id: 'todo_held_open' })]);
    recorded();
    await heldOpen;
  });
  await aRecorded;
  // ... while writer B (the larger seq) commits first, and a stream resumes meanwhile.
  const b = await todo('b');
  const resumed = track(await openStream(t.url, t.token, { query: 'type=todo.', lastEventId: seen!.id }));
  await waitFor('the resumed stream to open', () => resumed.frames.length > 0);
  commitA();
  await writerA;
  const c = await todo('c');

  const expected = ['todo_held_open', b.id, c.id];
  await resumed.waitForEvents(3);
  await live.waitForEvents(4);
  expect(resumed.events().map((e) => e.data.subject.id)).toEqual(expected);
  expect(live.events().map((e) => e.data.subject.id)).toEqual([zero.id, ...expected]);
  const [a, bEvent] = resumed.events();
  expect(BigInt(a!.id.slice(4))).toBeLessThan(BigInt(bEvent!.id.slice(4)));

  // Resuming from either of the two resends neither: after A comes B, after B only C.
  const fromA = track(await openStream(t.url, t.token, { query: 'type=todo.', lastEventId: a!.id }));
  const fromB = track(await openStream(t.url, t.token, { query: 'type=todo.', lastEventId: bEvent!.id }));
  await fromA.waitForEvents(2);
  await fromB.waitForEvents(1);
  const d = await todo('d');
  await fromA.waitForEvents(3);
  await fromB.waitForEvents(2);
  await resumed.waitForEvents(4);
  expect(fromA.events().map((e) => e.data.subject.id)).toEqual([b.id, c.id, d.id]);
  expect(fromB.events().map((e) => e.data.subject.id)).toEqual([c.id, d.id]);
  expect(resumed.events().map((e) => e.data.subject.id)).toEqual([...expected, d.id]);
});
