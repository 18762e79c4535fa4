import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStream } from './helpers/event-stream.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/** The embedded database (PGlite) has no second connection to LISTEN on: its own NOTIFY feeds the streams. */
let dir: string;
let t: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tack-events-'));
  t = await startTestServer({ DATA_DIR: dir });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('streams events and resumes with Last-Event-ID on the embedded database', async () => {
  const s = await openStream(t.url, t.token, { query: 'type=todo.' });
  await waitFor('the stream to open', () => s.frames.length > 0);
  const one = (await t.api('POST', '/v1/todos', { body: { title: 'embedded one' } })).body;
  const [first] = await s.waitForEvents(1);
  expect(first!.data.subject.id).toBe(one.id);
  s.close();
  await s.ended;
  const two = (await t.api('POST', '/v1/todos', { body: { title: 'embedded two' } })).body;
  const again = await openStream(t.url, t.token, { query: 'type=todo.', lastEventId: first!.id });
  await again.waitForEvents(1);
  const three = (await t.api('POST', '/v1/todos', { body: { title: 'embedded three' } })).body;
  await again.waitForEvents(2);
  expect(again.events().map((e) => e.data.subject.id)).toEqual([two.id, three.id]);
  again.close();
});
