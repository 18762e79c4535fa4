import { existsSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DbHandle } from '../src/db/connect.js';
import { DATABASE_URL } from './helpers/services.js';

/*
 * Every Postgres connection tack makes (request, jobs, Slack ack pools, the auth listener:
 * all come from `connect`) has TCP keepalive on. Node cannot read SO_KEEPALIVE back from a
 * socket, so the kernel is asked: in /proc/net/tcp a socket whose keepalive timer is armed
 * shows timer kind 02 (`tr`) while it is idle; one without keepalive shows 00.
 */

/** The kernel's timer kind for the TCP socket bound to this local port (Linux). */
function timerKind(localPort: number): string | undefined {
  const port = `:${localPort.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl, local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when, …
      if (cols[1]?.endsWith(port)) return cols[5]?.split(':')[0];
    }
  }
  return undefined;
}

let handle: DbHandle;
beforeAll(async () => {
  handle = await connect({ databaseUrl: DATABASE_URL, dataDir: '', poolSize: 2 });
});
afterAll(async () => handle?.close());

describe('Postgres connections', () => {
  it.skipIf(!existsSync('/proc/net/tcp'))('have TCP keepalive on (the kernel arms its timer on an idle connection)', async () => {
    const client = await handle.pool!.connect();
    try {
      await client.query('select 1');
      // pg's client keeps its socket on `connection.stream`, which its types leave out.
      const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
      expect(socket.localPort).toEqual(expect.any(Number));
      expect(timerKind(socket.localPort!)).toBe('02');
    } finally {
      client.release();
    }
  });
});
