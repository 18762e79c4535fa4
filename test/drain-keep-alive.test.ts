import { afterAll, describe, expect, it } from 'vitest';
import { lockTable, waitForBlockedQuery } from './helpers/locks.js';
import { openRaw, parseResponses, type RawConnection } from './helpers/raw-http.js';
import { startTestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * The drain and kept-alive connections (issue 27 item 19): a client that sends its next
 * request on a kept-alive connection as the drain begins gets 503 with `Connection: close`
 * and Retry-After, not a reset (the drain used to close every idle connection at once, and
 * again every 100 ms, while requests were still arriving on them).
 */

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function answered(conn: RawConnection, n: number) {
  return waitFor(`${n} answer(s) on the connection`, () => {
    const all = parseResponses(conn.received());
    return all.length >= n ? all : undefined;
  });
}

describe('draining with kept-alive connections', () => {
  it('answers a request that arrives on an idle kept-alive connection 503 with Connection: close, and ends the in-flight one with its answer', { timeout: 60_000 }, async () => {
    const t = await startTestServer();
    cleanups.push(() => t.database!.drop());
    cleanups.push(() => t.server.close());

    // A kept-alive connection that has had its answer and sits idle.
    const idle = await openRaw(t.url);
    idle.send('GET', '/healthz');
    expect((await answered(idle, 1))[0]!.status).toBe(200);
    const idleSince = Date.now();

    // Another whose request is in flight (held by a lock) when the drain starts.
    const busy = await openRaw(t.url);
    const lock = await lockTable(t.database!.url, 'tokens');
    let closing: Promise<void>;
    try {
      busy.send('POST', '/v1/tokens', { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' }, JSON.stringify({ name: 'in flight' }));
      await waitForBlockedQuery(t.database!.query, t.database!.name, 'insert into "tokens"%');
      // Idle for longer than the drain's grace before the drain: the grace still runs from its start.
      await waitFor('the connection to be idle for over a second', () => Date.now() - idleSince > 1_200, { intervalMs: 50 });
      closing = t.server.close();
      // The listener closes: the drain has begun, and Node has closed whatever it found idle.
      await waitFor('the listener to close', () => !t.server.app.server.listening, { intervalMs: 5 });
      expect(idle.socket.destroyed, 'the idle connection was reset as the drain began').toBe(false);
      // The client sends its next request on the connection it kept.
      idle.send('GET', '/healthz');
      const [, refused] = await answered(idle, 2);
      expect(refused!.status).toBe(503);
      expect(refused!.headers.connection).toBe('close');
      expect(refused!.headers['retry-after']).toBe('1');
      expect(JSON.parse(refused!.body)).toMatchObject({ code: 'shutting_down', http_status: 503 });
      await idle.closed;
    } finally {
      await lock.release();
    }
    // The in-flight request gets its answer, which closes its connection: the client reuses nothing.
    const [created] = await answered(busy, 1);
    expect(created!.status).toBe(201);
    expect(created!.headers.connection).toBe('close');
    await busy.closed;
    await closing!;
  });

  it('closes a connection left idle through the drain after a short grace, so the process can exit', { timeout: 60_000 }, async () => {
    const t = await startTestServer();
    cleanups.push(() => t.database!.drop());
    const idle = await openRaw(t.url);
    idle.send('GET', '/healthz');
    expect((await answered(idle, 1))[0]!.status).toBe(200);
    const started = Date.now();
    await t.server.close();
    await idle.closed;
    expect(parseResponses(idle.received())).toHaveLength(1);
    // The grace is a second; the shutdown's force timer would end the process at 25 s.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
