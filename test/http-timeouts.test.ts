import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockTable, waitForBlockedQuery } from './helpers/locks.js';
import { openRaw, parseResponses } from './helpers/raw-http.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { slackSignature } from '../src/slack/signature.js';
import { waitFor } from './helpers/wait.js';

/**
 * Bodies that never finish (issue 27, item 17): a request must arrive whole within
 * HTTP_REQUEST_TIMEOUT_MS and a silent connection is closed after HTTP_IDLE_TIMEOUT_MS,
 * unless its handler is still working; and callers who may not send a body (no token, a
 * token without the write's scope, a request Slack did not sign) are refused before it is
 * read. Short bounds are injected, so nothing here sleeps.
 */

const FOUR_MIB = 4 * 1024 * 1024;
const SIGNING_SECRET = 'timeouts-secret';
let t: TestServer;
let readOnly: string;

beforeAll(async () => {
  t = await startTestServer({
    HTTP_REQUEST_TIMEOUT_MS: '1000',
    HTTP_IDLE_TIMEOUT_MS: '400',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: 'xoxb-timeouts',
    // Nothing listens here: no test reaches Slack.
    SLACK_API_URL: 'http://127.0.0.1:9/api/',
  });
  const token = await t.api('POST', '/v1/tokens', { body: { name: 'read only', scopes: ['read'] } });
  expect(token.status).toBe(201);
  readOnly = token.body.token;
});
afterAll(async () => {
  await t?.close();
});

function socketTo(url: string): Promise<Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** What a socket receives until it closes; `closed` resolves then. */
function collect(socket: Socket): { text: () => string; closed: Promise<void> } {
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (text += d));
  socket.on('error', () => {});
  return { text: () => text, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not within ${ms} ms: ${what}`)), ms);
    }),
  ]);
}

describe('a request body held open', () => {
  it('50 connections sending all but one byte of 4 MiB to POST /v1/snippets are cut after the bound', { timeout: 120_000 }, async () => {
    const u = new URL(t.url);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const conns = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const socket = await socketTo(t.url);
        const seen = collect(socket);
        socket.write(
          `POST /v1/snippets HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: ${FOUR_MIB}\r\n\r\n`,
        );
        return { socket, seen };
      }),
    );
    // All but the last byte, as fast as the server reads: then nothing more.
    await Promise.all(
      conns.map(async ({ socket }) => {
        for (let sent = 0; sent < FOUR_MIB - 1 && !socket.destroyed; ) {
          const piece = chunk.subarray(0, Math.min(chunk.length, FOUR_MIB - 1 - sent));
          sent += piece.length;
          if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
        }
      }),
    );
    // Every connection is closed by the server; before the bound existed they stayed open for good.
    await within(30_000, 'the server to close all 50 connections', Promise.all(conns.map((c) => c.seen.closed)));
    for (const { seen } of conns) {
      // 408 in the envelope when Node's request deadline cut it; closed without a word when the idle bound did.
      const answer = parseResponses(seen.text())[0];
      if (answer) {
        expect(answer.status, seen.text().slice(0, 300)).toBe(408);
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'request_timeout', http_status: 408 });
      }
    }
    expect(await t.database!.query('select 1 from snippets')).toHaveLength(0);
    // The server still serves.
    expect((await t.api('GET', '/v1/me')).status).toBe(200);
  });

  it('a connection that sends its headers and then nothing is closed after the idle bound', async () => {
    const socket = await socketTo(t.url);
    const seen = collect(socket);
    const u = new URL(t.url);
    socket.write(`POST /v1/todos HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"ti`);
    await within(10_000, 'the server to close the silent connection', seen.closed);
  });

  it('a body that trickles in, never silent for the idle bound, is cut at the request bound with 408', async () => {
    const socket = await socketTo(t.url);
    const seen = collect(socket);
    const u = new URL(t.url);
    socket.write(`POST /v1/todos HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"title":"`);
    const drip = setInterval(() => socket.writable && socket.write('x'), 100);
    try {
      await within(10_000, 'the server to cut the trickling request', seen.closed);
    } finally {
      clearInterval(drip);
    }
    const [answer] = parseResponses(seen.text());
    expect(answer?.status, seen.text()).toBe(408);
    expect(JSON.parse(answer!.body)).toMatchObject({ code: 'request_timeout' });
  });

  it('a handler that works longer than the idle bound still answers on its connection', { timeout: 60_000 }, async () => {
    const conn = await openRaw(t.url);
    const lock = await lockTable(t.database!.url, 'tokens');
    try {
      conn.send('POST', '/v1/tokens', { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' }, JSON.stringify({ name: 'slow to make' }));
      await waitForBlockedQuery(t.database!.query, t.database!.name, 'insert into "tokens"%');
      // Well past the idle bound (400 ms) while the handler waits on the lock.
      const held = Date.now();
      await waitFor('the idle bound to pass twice over', () => Date.now() - held > 1_000, { intervalMs: 100 });
      expect(conn.socket.destroyed).toBe(false);
    } finally {
      await lock.release();
    }
    const [answer] = await waitFor('the answer', () => (parseResponses(conn.received()).length > 0 ? parseResponses(conn.received()) : undefined));
    expect(answer!.status, conn.received()).toBe(201);
    conn.socket.destroy();
  });
});

describe('refused before the body is read', () => {
  /** Sends headers announcing 4 MiB and the first bytes only; resolves with the first answer. */
  async function partialPost(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const socket = await socketTo(t.url);
    const seen = collect(socket);
    const u = new URL(t.url);
    const lines = [`POST ${path} HTTP/1.1`, `Host: ${u.host}`, `Content-Length: ${FOUR_MIB}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n{"name":"`);
    try {
      // The body never comes: an answer that waited for it would be the request bound's 408, or none.
      return await within(10_000, `an answer to POST ${path} before its body`, waitFor('an answer', () => parseResponses(seen.text())[0], { intervalMs: 10 }));
    } finally {
      socket.destroy();
    }
  }

  it("a read-only token's write is 403 insufficient_scope at once", async () => {
    const res = await partialPost('/v1/snippets', { authorization: `Bearer ${readOnly}`, 'content-type': 'application/json' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'insufficient_scope', http_status: 403 });
  });

  it('a request without a token is 401 at once', async () => {
    const res = await partialPost('/v1/snippets', { 'content-type': 'application/json' });
    expect(res.status).toBe(401);
  });

  it('a Slack request without signature headers, or with a stale timestamp, is 401 at once', async () => {
    const unsigned = await partialPost('/slack/events', { 'content-type': 'application/json' });
    expect(unsigned.status).toBe(401);
    expect(JSON.parse(unsigned.body)).toMatchObject({ code: 'invalid_slack_signature' });
    const stale = String(Math.floor(Date.now() / 1000) - 600);
    const old = await partialPost('/slack/events', {
      'content-type': 'application/json',
      'x-slack-request-timestamp': stale,
      'x-slack-signature': slackSignature(SIGNING_SECRET, stale, '{}'),
    });
    expect(old.status).toBe(401);
    // An unsigned form too long to be Slack's ssl_check probe.
    const form = await partialPost('/slack/events', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(401);
  });
});
