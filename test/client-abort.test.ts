import { connect } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/**
 * A client that hangs up in the middle of its request body: nothing of ours failed, so the
 * log says what happened at info level, not an error-level record (a lost database connection was one).
 */

const lines: { level: number; msg: string; reqId?: string }[] = [];
const log = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string; reqId?: string });
      done();
    },
  }),
);
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({}, { log });
});
afterAll(async () => {
  await t?.close();
});

describe('a client that disconnects mid-body', () => {
  it('is logged as a closed request, not as an error', async () => {
    const u = new URL(t.url);
    const socket = connect(Number(u.port), u.hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const body = JSON.stringify({ name: 'never arrives whole', type: 'txt', body: 'x'.repeat(10_000) });
    // Expect: 100-continue makes Node answer "100 Continue" once the request reaches the app.
    socket.write(
      `POST /v1/snippets HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${t.token}\r\nExpect: 100-continue\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    await waitFor('100 Continue', () => received.includes('100 Continue'));
    socket.write(body.slice(0, 100));
    await waitFor('the first part of the body sent', () => socket.bytesWritten > body.length / 100 && socket.writableLength === 0);
    socket.destroy();

    const closed = await waitFor('the log line for the closed request', () => lines.find((l) => /client closed the request/.test(l.msg)), { timeoutMs: 5_000 }).catch((err: Error) => {
      throw new Error(`${err.message}; logged: ${JSON.stringify(lines)}`);
    });
    expect(closed.level).toBe(30);
    // The request's own logger (made only when a request logs) carries its id.
    expect(closed.reqId).toMatch(/^req_[0-9a-f]{24}$/);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(await t.database!.query(`select 1 from snippets where name = 'never arrives whole'`)).toHaveLength(0);
  });
});
