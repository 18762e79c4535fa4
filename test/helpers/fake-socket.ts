import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { waitFor } from './wait.js';

/**
 * A local stand-in for Slack's Socket Mode WebSocket endpoint (the URL that
 * apps.connections.open hands out): a minimal RFC 6455 server on 127.0.0.1 that greets each
 * connection with Slack's `hello`, answers pings, can ask everyone to reconnect, as Slack
 * does when it recycles a connection, and delivers envelopes (a slash command, an event) on
 * the newest connection, recording what the client sends back (its acks).
 */
export interface FakeSocket {
  /** `ws://127.0.0.1:<port>/` */
  url: string;
  /** How many connections were opened so far. */
  opened(): number;
  /** Waits until `n` connections were opened in all. */
  waitForOpened(n: number, timeoutMs?: number): Promise<void>;
  /** Sends Slack's `disconnect` message on every open connection (the client reconnects). */
  askToReconnect(): void;
  /** Sends one envelope (`{ envelope_id, type, payload, … }`) on the newest open connection. */
  deliver(envelope: { envelope_id: string; type: string; payload: unknown } & Record<string, unknown>): void;
  /** Waits for the client's `n`th ack (default the first) of an envelope (`{ envelope_id, payload? }`) and returns it. */
  waitForAck(envelopeId: string, n?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function frame(opcode: number, payload: Buffer): Buffer {
  const head = payload.length < 126 ? Buffer.from([0x80 | opcode, payload.length]) : Buffer.from([0x80 | opcode, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, payload]);
}

/** One frame from the start of `buf` (clients always mask), or undefined if incomplete. */
function readFrame(buf: Buffer): { opcode: number; payload: Buffer; size: number } | undefined {
  if (buf.length < 2) return undefined;
  const opcode = buf[0]! & 0x0f;
  let length = buf[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buf.length < 4) return undefined;
    length = buf.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buf.length < 10) return undefined;
    length = Number(buf.readBigUInt64BE(2));
    offset = 10;
  }
  const masked = (buf[1]! & 0x80) !== 0;
  const mask = masked ? buf.subarray(offset, offset + 4) : undefined;
  if (masked) offset += 4;
  if (buf.length < offset + length) return undefined;
  const payload = Buffer.from(buf.subarray(offset, offset + length));
  if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
  return { opcode, payload, size: offset + length };
}

const text = (value: unknown) => frame(0x1, Buffer.from(JSON.stringify(value)));

export async function startFakeSocket(): Promise<FakeSocket> {
  const open = new Set<Duplex>();
  let newest: Duplex | undefined;
  let opened = 0;
  // The client's text frames, parsed.
  const received: Record<string, unknown>[] = [];
  const server: Server = createServer((_req, res) => {
    res.writeHead(426);
    res.end();
  });
  server.on('upgrade', (req, socket: Duplex) => {
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key'] ?? ''}${GUID}`).digest('base64');
    socket.write(['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade', `Sec-WebSocket-Accept: ${accept}`, '', ''].join('\r\n'));
    open.add(socket);
    newest = socket;
    opened += 1;
    socket.on('error', () => {});
    socket.on('close', () => open.delete(socket));
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let f = readFrame(pending); f; f = readFrame(pending)) {
        pending = pending.subarray(f.size);
        if (f.opcode === 0x9) socket.write(frame(0xa, f.payload));
        else if (f.opcode === 0x1) received.push(JSON.parse(f.payload.toString('utf8')) as Record<string, unknown>);
        else if (f.opcode === 0x8) {
          socket.end(frame(0x8, f.payload));
          open.delete(socket);
        }
      }
    });
    socket.write(text({ type: 'hello', num_connections: 1, debug_info: { host: 'fake-socket' }, connection_info: { app_id: 'A123456' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/`,
    opened: () => opened,
    waitForOpened: (n, timeoutMs = 30_000) => waitFor(`${n} Socket Mode connections`, () => opened >= n, { timeoutMs }).then(() => undefined),
    askToReconnect() {
      for (const s of open) s.write(text({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'fake-socket' } }));
    },
    deliver(envelope) {
      if (!newest || !open.has(newest)) throw new Error('no open Socket Mode connection to deliver on');
      newest.write(text(envelope));
    },
    waitForAck: (envelopeId, n = 1) =>
      waitFor(`ack ${n} of envelope ${envelopeId}`, () => received.filter((m) => m.envelope_id === envelopeId)[n - 1], { timeoutMs: 10_000 }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
