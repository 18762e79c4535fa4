import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TACK_BIN } from './helpers/tack.js';
import { openStream, type OpenStream } from './helpers/event-stream.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/web.js';
import { waitFor } from './helpers/wait.js';

/**
 * The live stream (contract §10): two API processes on one Postgres, so an event committed
 * through one reaches the streams of both; resumes with Last-Event-ID lose and repeat nothing.
 */
let a: TestServer;
let b: TestServer;
const streams: OpenStream[] = [];
const track = (s: OpenStream) => (streams.push(s), s);

async function ok(t: TestServer, method: string, path: string, body?: unknown, token?: string) {
  const res = await t.api(method, path, { body, token });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

let ana: { id: string; token: string };

beforeAll(async () => {
  a = await startTestServer({}, { streamKeepAliveMs: 300 });
  b = await startTestServer({ DATABASE_URL: a.database!.url, TACK_BOOTSTRAP_TOKEN: a.token });
  const member = await ok(a, 'POST', '/v1/members', { name: 'Ana', role: 'member' });
  ana = { id: member.id, token: (await ok(a, 'POST', '/v1/tokens', { name: 'ana', scopes: ['read', 'write'], member_id: member.id })).token };
});
afterAll(async () => {
  for (const s of streams) s.close();
  await b?.server.close();
  await a?.close();
});

describe('GET /v1/events/stream', () => {
  it('sends each event as id, event and data lines, on every process, as the caller may see it', async () => {
    const onA = track(await openStream(a.url, a.token));
    const onB = track(await openStream(b.url, a.token));
    const anaOnB = track(await openStream(b.url, ana.token, { query: 'type=todo.' }));
    expect(onA.status).toBe(200);
    expect(onA.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await waitFor('both streams open', () => onA.frames.length > 0 && onB.frames.length > 0 && anaOnB.frames.length > 0);

    const todo = await ok(a, 'POST', '/v1/todos', { title: 'streamed' });
    const anas = await ok(b, 'POST', '/v1/todos', { title: 'ana streamed' }, ana.token);
    const [first] = await onB.waitForEvents(1);
    expect(first).toMatchObject({ type: 'todo.created', data: { type: 'todo.created', subject: { type: 'todo', id: todo.id }, data: todo } });
    expect(first!.id).toBe(first!.data.id);
    expect(first!.id).toMatch(/^evt_\d+$/);
    await onA.waitForEvents(1);
    expect(onA.events()[0]!.data).toEqual(first!.data);
    // Ana sees her own todo only; the owner never sees Ana's.
    const [hers] = await anaOnB.waitForEvents(1);
    expect(hers!.data.subject.id).toBe(anas.id);
    const card = await ok(b, 'POST', '/v1/cards', { board: (await ok(a, 'POST', '/v1/boards', { name: 'S', slug: 's', ref_prefix: 'S' })).slug, title: 'x' });
    await onA.waitForEvents(3);
    expect(onA.events().map((e) => e.type)).toEqual(['todo.created', 'board.created', 'card.created']);
    expect(onA.events()[2]!.data.data).toEqual(card);
    expect(anaOnB.events().map((e) => e.data.subject.id)).toEqual([anas.id]);
  });

  it('resumes with Last-Event-ID: every later event, in order, none lost, none repeated', async () => {
    const first = track(await openStream(b.url, a.token, { query: 'type=todo.' }));
    await waitFor('the stream to open', () => first.frames.length > 0);
    const one = await ok(a, 'POST', '/v1/todos', { title: 'one' });
    const [seen] = await first.waitForEvents(1);
    first.close();
    await first.ended;
    // Written while disconnected, through both processes, with events of other types between.
    const two = await ok(a, 'POST', '/v1/todos', { title: 'two' });
    await ok(b, 'POST', '/v1/milestones', { ref: 'R1', name: 'between' });
    const three = await ok(b, 'POST', '/v1/todos', { title: 'three' });
    const again = track(await openStream(a.url, a.token, { query: 'type=todo.', lastEventId: seen!.id }));
    await again.waitForEvents(2);
    const four = await ok(b, 'POST', '/v1/todos', { title: 'four' });
    await again.waitForEvents(3);
    expect(seen!.data.subject.id).toBe(one.id);
    expect(again.events().map((e) => e.data.subject.id)).toEqual([two.id, three.id, four.id]);
    const ids = again.events().map((e) => Number(e.id.slice(4)));
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
  });

  it('starts with event: reset for an id it does not know, then live', async () => {
    for (const lastEventId of ['evt_999999999', 'whatever']) {
      const s = track(await openStream(a.url, a.token, { lastEventId, query: 'type=milestone.' }));
      await waitFor('the reset', () => s.frames.find((f) => f.event === 'reset'));
      expect(s.events()[0]).toEqual({ id: undefined, type: 'reset', data: {} });
      const m = await ok(b, 'POST', '/v1/milestones', { ref: `Z${lastEventId.length}`, name: 'after reset' });
      await s.waitForEvents(2);
      expect(s.events()[1]!.data.subject.id).toBe(m.id);
      s.close();
    }
  });

  it('sends a comment line when nothing else was sent for a while', async () => {
    const s = track(await openStream(a.url, a.token, { query: 'type=webhook.' }));
    await waitFor('a keep-alive comment', () => s.frames.filter((f) => f.comment === 'keep-alive').length >= 2);
    s.close();
  });

  it("ends a stream whose token is revoked", async () => {
    const token = await ok(a, 'POST', '/v1/tokens', { name: 'short-lived', scopes: ['read'] });
    const s = track(await openStream(b.url, token.token));
    await waitFor('the stream to open', () => s.frames.length > 0);
    await ok(a, 'DELETE', `/v1/tokens/${token.id}`);
    await s.ended;
    expect(s.events().map((e) => e.type)).toEqual(['token.revoked']);
  });

  it('ends a stream opened with a web session when that session is deleted, on every process', async () => {
    // Signed out through the page's POST /signout on one process; the stream is open on the other.
    const leaving = await signIn(a, ana.id, ana.token);
    const staying = await signIn(a, ana.id, ana.token);
    const s = track(await openStream(b.url, null, { headers: { cookie: leaving.cookie } }));
    const other = track(await openStream(b.url, null, { headers: { cookie: staying.cookie } }));
    expect(s.status).toBe(200);
    await waitFor('the streams to open', () => s.frames.length > 0 && other.frames.length > 0);
    const out = await fetch(`${a.url}/signout`, { method: 'POST', headers: { cookie: leaving.cookie, origin: a.url, 'content-type': 'application/json' }, body: '{}' });
    expect(out.status).toBe(204);
    await s.ended;
    // Its reconnect is refused; the other session's stream goes on and hears what follows.
    const again = await fetch(`${b.url}/v1/events/stream`, { headers: { cookie: leaving.cookie } });
    expect(again.status).toBe(401);
    const todo = await ok(a, 'POST', '/v1/todos', { title: 'after sign-out' }, ana.token);
    const [heard] = await other.waitForEvents(1);
    expect(heard!.data.subject.id).toBe(todo.id);

    // Ended by DELETE /v1/sessions/{id} with a bearer token, on the stream's own process.
    const sessions = await ok(a, 'GET', '/v1/sessions', undefined, ana.token);
    expect(sessions.data).toHaveLength(1);
    const target = sessions.data[0];
    await ok(b, 'DELETE', `/v1/sessions/${target.id}`, undefined, ana.token);
    await other.ended;
    expect(other.events().map((e) => e.type)).toEqual(['todo.created']);
  });

  it('loses nothing while its listening connection is gone: it catches up once it listens again', async () => {
    const s = track(await openStream(b.url, a.token, { query: 'type=milestone.' }));
    await waitFor('the stream to open', () => s.frames.length > 0);
    const listeners = () => a.database!.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and query ilike 'LISTEN tack_events%'`);
    const before = await waitFor('both processes listening for events', async () => ((await listeners()).length === 2 ? listeners() : undefined));
    await a.database!.query('select pg_terminate_backend(pid) from pg_stat_activity where pid = any($1)', [before.map((r) => r.pid)]);
    await waitFor('the listeners to be gone', async () => (await listeners()).every((r) => !before.some((x) => x.pid === r.pid)) && (await listeners()).length < 2);
    const m = await ok(a, 'POST', '/v1/milestones', { ref: 'DEAF', name: 'written while deaf' });
    const [heard] = await s.waitForEvents(1);
    expect(heard!.data.subject.id).toBe(m.id);
  });

  it('refuses bad filters and missing tokens with the one envelope', async () => {
    const bad = await fetch(`${a.url}/v1/events/stream?type=nope`, { headers: { authorization: `Bearer ${a.token}` } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).errors[0].field).toBe('type');
    const none = await fetch(`${a.url}/v1/events/stream`);
    expect(none.status).toBe(401);
  });

  it('ends open streams cleanly when its process shuts down', async () => {
    const c = await startTestServer({ DATABASE_URL: a.database!.url, TACK_BOOTSTRAP_TOKEN: a.token });
    const s = track(await openStream(c.url, a.token));
    await waitFor('the stream to open', () => s.frames.length > 0);
    await c.server.close();
    await s.ended;
  });

  it('tack events tail prints each event, and reconnects where it left off', async () => {
    const shared = { DATABASE_URL: a.database!.url, TACK_BOOTSTRAP_TOKEN: a.token };
    let c = await startTestServer(shared);
    const port = new URL(c.url).port;
    const child = spawn(process.execPath, [TACK_BIN, 'events', 'tail', '--type', 'snippet.'], {
      env: { PATH: process.env.PATH ?? '', TACK_URL: c.url, TACK_TOKEN: a.token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const printed = () => out.trim().split('\n').filter(Boolean);
    try {
      // Until its stream is open, a snippet made now may come before it: make them until one is printed.
      const made: string[] = [];
      await waitFor('tail to print an event', async () => {
        made.push((await ok(a, 'POST', '/v1/snippets', { type: 'txt', name: `tail ${made.length}`, body: 'x' })).slug);
        return out.includes('snippet.created');
      }, { intervalMs: 300 });
      expect(printed()[0]).toMatch(/snippet\.created {2}snp_\w+ {2}by Owner \(api\)$/);
      // The process it streams from goes away; what is written meanwhile is printed once it is back.
      await c.server.close();
      await waitFor('tail to notice', () => err.includes('reconnecting'));
      const before = printed().length;
      await ok(a, 'PATCH', `/v1/snippets/${made.at(-1)}`, { body: 'y' });
      c = await startTestServer({ ...shared, PORT: port });
      await waitFor('the update, after reconnecting', () => printed().length > before);
      expect(printed().at(-1)).toMatch(/snippet\.updated {2}snp_\w+ {2}by Owner \(api\) {2}body, version$/);
      expect(new Set(printed()).size).toBe(printed().length);
    } finally {
      child.kill();
      await c.server.close();
    }
  });
});
